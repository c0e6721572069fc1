"""Stand-in for MicroPython's machine.Pin: outputs are recorded, inputs driven by the tests."""

IN = 0
OUT = 1


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    levels = {}   # pin id -> level of an input, as the outside world drives it
    trace = []    # (pin id, level) for every write to an output, in order

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = Pin.IN
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull == Pin.PULL_UP and self.id not in Pin.levels:
            Pin.levels[self.id] = 1
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return Pin.levels.get(self.id, 0)
        if self.mode != Pin.OUT:
            raise OSError("pin %r is not an output" % (self.id,))
        Pin.levels[self.id] = 1 if v else 0
        Pin.trace.append((self.id, Pin.levels[self.id]))

    __call__ = value

    @classmethod
    def drive(cls, id, level):
        """The outside world (a button) sets an input's level."""
        cls.levels[id] = level

    @classmethod
    def reset(cls):
        cls.levels = {}
        cls.trace = []
