# A driver for the TM1637 4-digit 7-segment display, bit-banged on two GPIO pins (MicroPython).
#
# The TM1637 speaks a two-wire protocol close to I2C but without addresses, least significant bit
# first: a start (DIO falls while CLK is high), bytes clocked in on CLK's rising edge each followed
# by an acknowledge clock, and a stop (DIO rises while CLK is high). Three transactions draw the
# display: the data command (0x40: write, auto-increment), the address command (0xC0, digit 0)
# followed by the four segment bytes, and the display control (0x88 | brightness 0-7).

from machine import Pin
import utime

DATA_AUTO = 0x40
ADDRESS_0 = 0xC0
DISPLAY_ON = 0x88
COLON = 0x80  # the second digit's decimal point drives the colon on clock displays

# Segments: bit 0 = a (top), 1 = b, 2 = c, 3 = d (bottom), 4 = e, 5 = f, 6 = g (middle).
FONT = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D, "7": 0x07,
    "8": 0x7F, "9": 0x6F, " ": 0x00, "-": 0x40, "_": 0x08, "A": 0x77, "b": 0x7C, "C": 0x39,
    "c": 0x58, "d": 0x5E, "E": 0x79, "F": 0x71, "G": 0x3D, "H": 0x76, "L": 0x38, "n": 0x54,
    "o": 0x5C, "P": 0x73, "r": 0x50, "S": 0x6D, "t": 0x78, "U": 0x3E, "u": 0x1C, "y": 0x6E,
}


def segments(text, colon=False):
    """Four characters -> four segment bytes (unknown characters are blank)."""
    text = (text + "    ")[:4]
    out = [FONT.get(ch, 0) for ch in text]
    if colon:
        out[1] |= COLON
    return out


class TM1637:
    def __init__(self, clk, dio, brightness=4, bit_delay_us=10):
        self.clk = Pin(clk, Pin.OUT, value=1)
        self.dio_pin = dio
        self.dio = Pin(dio, Pin.OUT, value=1)
        self.delay = bit_delay_us
        self.level = max(0, min(7, brightness))
        self.shown = None

    def _wait(self):
        utime.sleep_us(self.delay)

    def _start(self):
        self.dio.value(0)
        self._wait()
        self.clk.value(0)
        self._wait()

    def _stop(self):
        self.clk.value(0)
        self.dio.value(0)
        self._wait()
        self.clk.value(1)
        self._wait()
        self.dio.value(1)
        self._wait()

    def _byte(self, b):
        for i in range(8):
            self.dio.value((b >> i) & 1)
            self._wait()
            self.clk.value(1)
            self._wait()
            self.clk.value(0)
            self._wait()
        # Acknowledge clock: let go of DIO so the chip can pull it low (no fight between drivers).
        self.dio.init(Pin.IN, Pin.PULL_UP)
        self.clk.value(1)
        self._wait()
        self.clk.value(0)
        self._wait()
        self.dio.init(Pin.OUT, value=0)

    def write(self, segs):
        """Draw four segment bytes, then switch the display on at the set brightness."""
        self._start()
        self._byte(DATA_AUTO)
        self._stop()
        self._start()
        self._byte(ADDRESS_0)
        for s in segs:
            self._byte(s & 0xFF)
        self._stop()
        self._start()
        self._byte(DISPLAY_ON | self.level)
        self._stop()
        self.shown = list(segs)

    def show(self, text, colon=False):
        """Draw up to four characters; skips the bus entirely when nothing changed."""
        segs = segments(text, colon)
        if segs != self.shown:
            self.write(segs)

    def brightness(self, level):
        self.level = max(0, min(7, level))
        if self.shown is not None:
            self.write(self.shown)
