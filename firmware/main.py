# board-pi Pico clock: entry point, run by MicroPython at power-up. Wiring: firmware/README.md.
#
# Copy main.py, picoclock.py, picolink.py and tm1637.py to the Pico's flash (see the README).
# The pin numbers below are the Pico's GPn numbers; change them here to match your wiring.

import micropython
import os
import select
import sys

import utime
from machine import Pin

import picoclock
from tm1637 import TM1637

PINS = {
    "player0": 2,
    "player1": 3,
    "pause": 4,
    "challenge": 5,
    "hold": 6,
    "display0_clk": 10,
    "display0_dio": 11,
    "display1_clk": 12,
    "display1_dio": 13,
    "buzzer": 15,
}
ALLOWANCE_MS = 25 * 60000
MAX_OVERTIME_MS = 10 * 60000


class UsbPort:
    """The USB serial link: MicroPython's stdin/stdout, read without blocking."""

    def __init__(self):
        self.inp = sys.stdin.buffer
        self.outp = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self):
        data = b""
        while self.poller.poll(0) and len(data) < 256:
            data += self.inp.read(1)
        return data

    def write(self, data):
        self.outp.write(data)


def main():
    # Hold the pause button while powering up to get the REPL instead of the clock (to update
    # the firmware: once the clock runs, Ctrl-C no longer reaches the REPL).
    if Pin(PINS["pause"], Pin.IN, Pin.PULL_UP).value() == 0:
        print("board-pi clock: pause held at start-up, staying in the REPL")
        return
    # Our frames are plain ASCII, but line noise can carry a Ctrl-C: it must not stop the clock.
    micropython.kbd_intr(-1)
    boot = "".join("%02X" % b for b in os.urandom(4))
    buttons = [(name, Pin(PINS[name], Pin.IN, Pin.PULL_UP)) for name in picoclock.BUTTONS]
    displays = [TM1637(PINS["display0_clk"], PINS["display0_dio"]),
                TM1637(PINS["display1_clk"], PINS["display1_dio"])]
    buzzer = Pin(PINS["buzzer"], Pin.OUT, value=0)
    clock = picoclock.PicoClock(UsbPort(), buttons, displays, buzzer, boot,
                                allowance_ms=ALLOWANCE_MS, max_overtime_ms=MAX_OVERTIME_MS)
    while True:
        clock.step()
        utime.sleep_ms(1)


main()
