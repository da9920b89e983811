"""Errors and warnings raised for user input."""


class ScenarioError(ValueError):
    """A scenario value is missing, unknown or out of range.

    The message starts with the field's path (``flows[0].rtt``) and says what was expected.
    """

    def __init__(self, path: str, message: str):
        self.path = path
        self.reason = message
        super().__init__(f"{path}: {message}" if path else message)

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        # Pickled whole, so that an error raised in a worker process (a sweep, the catalog's
        # pool) arrives as itself rather than breaking the pool.
        return (ScenarioError, (self.path, self.reason))


class AqmlabWarning(UserWarning):
    """Input that is accepted but probably not what was meant (a group's stop before some of its
    flows' starts), or a result that has nothing to measure (no flow sent in the measured window)."""
