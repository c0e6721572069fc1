"""The director's PIN: hashed with scrypt, checked in constant time, and kept in the data directory.

A PIN is short, so a plain hash would fall to a search of every PIN in moments; scrypt with a
random salt makes each guess cost real memory and time. The hash is kept as
``scrypt$n$r$p$salt$key`` in ``<data>/director-pin`` (the service's own state directory), never
the PIN; an old configuration's ``web.director_pin_hash`` is still read.

Neither the web nor the command line: the configuration's checks, ``board-pi config set-pin``
and the status page all use this one module, so a PIN set in one place works in the others.

>>> stored = hash_pin("2468")
>>> stored.startswith("scrypt$")
True
>>> check_pin("2468", stored), check_pin("1357", stored)
(True, False)
"""


from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

# scrypt costs: n=2**14, r=8 takes about 16 MiB and tens of milliseconds (more on a Pi): cheap
# for one login, dear for a search through all 10^4..10^8 PINs.
_N, _R, _P = 2 ** 14, 8, 1
_KEY_LEN = 32
MIN_PIN, MAX_PIN = 4, 64
# What a stored hash may ask of scrypt: more would take minutes or gigabytes per login (n=2**40
# never finishes), locking the director out for good; less is no protection.
N_RANGE, R_RANGE, P_RANGE = (2 ** 10, 2 ** 20), (1, 32), (1, 16)
_MAXMEM = 256 * 1024 * 1024


class BadPin(ValueError):
    """A PIN that cannot be used (too short, too long, not printable)."""


PIN_RULES = f"{MIN_PIN} to {MAX_PIN} printable characters, with no spaces at either end"


def validate_pin(pin: object) -> str:
    """The PIN as given, or BadPin saying what is wrong with it: the one definition of a good PIN,
    for the page and for ``board-pi config set-pin`` alike.

    >>> validate_pin("2468")
    '2468'
    >>> try:
    ...     validate_pin(" 2468")
    ... except BadPin as e:
    ...     print(e)
    the PIN must not start or end with a space
    """
    if not isinstance(pin, str):
        raise BadPin("the PIN must be text")
    if not MIN_PIN <= len(pin) <= MAX_PIN:
        raise BadPin(f"the PIN must have {MIN_PIN} to {MAX_PIN} characters (it has {len(pin)})")
    if pin.strip() != pin:
        raise BadPin("the PIN must not start or end with a space")
    if not pin.isprintable():
        raise BadPin("the PIN must be printable: no control characters, tabs or line breaks")
    return pin


def pin_hash_problem(stored: object) -> str | None:
    """What is wrong with a stored PIN hash, or None when it can be used.

    >>> pin_hash_problem(hash_pin("2468")) is None
    True
    >>> pin_hash_problem("scrypt$1099511627776$8$1$c2FsdA$a2V5")
    'its scrypt cost n=1099511627776 is out of range (1024 to 1048576, a power of two)'
    """
    if not isinstance(stored, str):
        return "it is not text"
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return "it is not a PIN hash (scrypt$n$r$p$salt$key)"
    if not all(x.isascii() and x.isdigit() and len(x) <= 30 for x in parts[1:4]):
        return "its scrypt parameters are not whole numbers"
    n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
    if not (N_RANGE[0] <= n <= N_RANGE[1] and n & (n - 1) == 0):
        return f"its scrypt cost n={n} is out of range ({N_RANGE[0]} to {N_RANGE[1]}, a power of two)"
    if not (R_RANGE[0] <= r <= R_RANGE[1] and P_RANGE[0] <= p <= P_RANGE[1]):
        return f"its scrypt parameters r={r}, p={p} are out of range (r 1 to 32, p 1 to 16)"
    if 128 * n * r + 128 * r * p > _MAXMEM:
        return f"its scrypt parameters need more than {_MAXMEM // 2**20} MiB"
    try:
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except ValueError:
        return "its salt or key is not base64"
    if len(salt) < 8 or not 16 <= len(key) <= 64:
        return "its salt or key has the wrong length"
    return None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$key``: what the configuration stores instead of the PIN."""
    validate_pin(pin)
    salt = os.urandom(16) if salt is None else salt
    key = hashlib.scrypt(pin.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=_KEY_LEN,
                         maxmem=64 * 1024 * 1024)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(key)}"


def check_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` matches ``stored`` (from :func:`hash_pin`). A damaged hash matches nothing."""
    if not isinstance(pin, str) or pin_hash_problem(stored) is not None:
        return False
    parts = stored.split("$")
    n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
    salt, key = _unb64(parts[4]), _unb64(parts[5])
    try:
        got = hashlib.scrypt(pin.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p,
                             dklen=len(key), maxmem=_MAXMEM)
    except (ValueError, TypeError, MemoryError):
        return False
    return hmac.compare_digest(got, key)


# A stored hash's shape, whatever its costs: tells a PIN written by mistake from a hash.
PIN_HASH_SHAPE = re.compile(r"^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_\-+/=]+\$[A-Za-z0-9_\-+/=]+$")


# -- where it is kept ----------------------------------------------------------------------

PIN_FILE = "director-pin"
CODE_FILE = "director-code"
SESSIONS_FILE = "director-sessions.json"  # the director's live sessions (board_pi.serve.store)
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # nothing to misread: no 0/O, 1/I


class DirectorStoreError(ValueError):
    """A stored PIN hash that cannot be used, or a file that cannot be read or written."""


def write_private(path: Path, text: str) -> None:
    """Write ``text`` over ``path`` atomically, readable by its owner only (0600).

    Run as root (``sudo board-pi config set-pin``), the file is given to the owner of its
    directory, the service's user, which must be able to read it. Raises OSError.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            st = path.parent.stat()
            os.chown(tmp, st.st_uid, st.st_gid)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_small(path: Path, limit: int = 64 * 1024) -> str | None:
    """The file's text, or None when there is none. Raises OSError when it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        return None
    if len(data) > limit:
        raise DirectorStoreError(f"{path}: too large to be ours ({limit} bytes at most)")
    return data.decode("utf-8", "replace")


def stored_pin_hash(data_dir: Path | None, legacy_hash: str | None = None) -> tuple[str | None, str]:
    """The PIN hash in force and where it comes from: ``<data>/director-pin``, else the old
    configuration's hash, else (None, ""). Raises DirectorStoreError for a hash that cannot be
    used (damaged, or scrypt costs out of range) or a file that cannot be read.
    """
    if data_dir is not None:
        path = data_dir / PIN_FILE
        try:
            text = read_small(path)
        except OSError as e:
            raise DirectorStoreError(f"{path}: cannot be read ({e.strerror or e})") from None
        if text is not None:
            stored = text.strip()
            problem = pin_hash_problem(stored)
            if problem:
                raise DirectorStoreError(f"{path}: the director's PIN hash cannot be used: {problem}; "
                                         "set a new PIN with `board-pi config set-pin`")
            return stored, str(path)
    if legacy_hash:
        problem = pin_hash_problem(legacy_hash)
        if problem:
            raise DirectorStoreError(f"web.director_pin_hash in the configuration cannot be used: {problem}; "
                                     "set a new PIN with `board-pi config set-pin`")
        return legacy_hash, "the configuration (web.director_pin_hash)"
    return None, ""


def save_pin_hash(data_dir: Path, stored: str) -> Path:
    """Keep ``stored`` as the director's PIN hash in ``<data>/director-pin`` (0600, atomically);
    the setup code is used up and every director's session ends. Returns the file. Raises
    DirectorStoreError for an unusable hash, OSError when it cannot be written (nothing changed).
    """
    problem = pin_hash_problem(stored)
    if problem:
        raise DirectorStoreError(f"not a usable PIN hash: {problem}")
    path = data_dir / PIN_FILE
    write_private(path, stored + "\n")
    for name in (CODE_FILE, SESSIONS_FILE):
        try:
            (data_dir / name).unlink()
        except FileNotFoundError:
            pass
    return path


def new_setup_code() -> str:
    """Eight characters from a 32-letter alphabet (40 bits), as ``ABCD-EF23``."""
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normalise_code(code: str) -> str:
    """A code as typed (any case, spaces or no dash) in the stored form."""
    raw = "".join(ch for ch in code.upper() if ch.isalnum())
    return f"{raw[:4]}-{raw[4:]}" if len(raw) == 8 else raw


def setup_code(data_dir: Path) -> str:
    """The one-time code in ``<data>/director-code``, made (0600) when there is none, so that
    ``board-pi run`` and ``board-pi doctor`` show the same one. Raises OSError."""
    path = data_dir / CODE_FILE
    try:
        text = read_small(path, 256)
    except DirectorStoreError:
        text = None
    code = normalise_code(text or "")
    if len(code) != 9:
        code = new_setup_code()
        write_private(path, code + "\n")
    return code
