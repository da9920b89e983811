"""aqmlab: design, tune and defend Active Queue Management schemes."""
