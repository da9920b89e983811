"""Errors raised for bad user input."""


class ScenarioError(ValueError):
    """A scenario value is missing, unknown or out of range.

    The message starts with the field's path (``flows[0].rtt``) and says what was expected.
    """

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)
