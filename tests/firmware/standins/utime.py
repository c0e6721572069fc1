"""Stand-in for MicroPython's utime: ticks in ms that wrap at 2**30 like the Pico's."""

import time

TICKS_PERIOD = 1 << 30
now_fn = time.monotonic  # tests may swap in a fake clock (seconds)
offset_ms = 0  # tests may start the ticks near the wrap


def ticks_ms():
    return (int(round(now_fn() * 1000)) + offset_ms) % TICKS_PERIOD


def ticks_diff(a, b):
    d = (a - b) % TICKS_PERIOD
    return d - TICKS_PERIOD if d >= TICKS_PERIOD // 2 else d


def ticks_add(t, delta):
    return (t + delta) % TICKS_PERIOD


def sleep_ms(ms):
    if now_fn is time.monotonic:
        time.sleep(ms / 1000)


def sleep_us(us):
    # Bit-banging delays: the stand-in pins need none.
    pass
