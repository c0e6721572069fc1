#!/usr/bin/env bash
# Install board-pi as a service on Raspberry Pi OS (Bookworm, 64-bit).
#
#   sudo systemd/install.sh              install or update, enable and (re)start the service
#   systemd/install.sh --dry-run         print every step without doing anything (any Linux machine)
#
# Safe to run again: each step checks what is already there (an update is the same command after
# `git pull`). The configuration file is never overwritten.
#
# What it does:
#   1. Debian packages: Python's venv, the camera stack (picamera2 and libcamera come from the
#      Raspberry Pi archive, not PyPI: they are built against the system's libcamera), the GPIO
#      library (gpiozero over lgpio) and the distribution's numpy, which picamera2 is built against.
#   2. A system user board-pi in the groups video (camera), gpio (pins) and dialout (serial port).
#   3. A virtual environment in $PREFIX/venv made with --system-site-packages, so it sees
#      picamera2, libcamera and lgpio, and board-pi installed into it from this checkout (a copy,
#      not an editable install: the service cannot read home directories).
#   4. The configuration template at $CONFIG if there is no file there yet.
#   5. The unit at /etc/systemd/system/board-pi.service, enabled at boot and started.
set -euo pipefail

PREFIX=/opt/board-pi
CONFIG=/etc/board-pi/board-pi.toml
DRY_RUN=0
START=1
SERVICE_USER=board-pi
UNIT_DEST=/etc/systemd/system/board-pi.service
APT_PACKAGES=(
    python3-venv python3-pip        # the virtual environment
    python3-picamera2 python3-libcamera  # the camera (Raspberry Pi archive)
    python3-numpy                   # picamera2's numpy; pip is held to the same version
    python3-gpiozero python3-lgpio  # the GPIO clock
    git
)
# The distribution's Python: the venv must be built on it to see picamera2 and lgpio (a Python from
# elsewhere, pyenv say, has other site packages).
PYTHON="${BOARD_PI_PYTHON:-/usr/bin/python3}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    cat <<EOF

Options:
  --dry-run        print every step, change nothing (needs no root)
  --prefix DIR     where the venv and docs go (default $PREFIX)
  --config FILE    the configuration file (default $CONFIG)
  --no-start       enable the service but do not (re)start it now
  -h, --help       this text
EOF
}

ARGS="$*"
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --no-start) START=0 ;;
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; PREFIX="$2"; shift ;;
        --prefix=*) PREFIX="${1#*=}" ;;
        --config) [ $# -ge 2 ] || { echo "install.sh: --config needs a file" >&2; exit 2; }; CONFIG="$2"; shift ;;
        --config=*) CONFIG="${1#*=}" ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$PREFIX" in /*) ;; *) echo "install.sh: --prefix must be an absolute path" >&2; exit 2 ;; esac
case "$CONFIG" in /*) ;; *) echo "install.sh: --config must be an absolute path" >&2; exit 2 ;; esac
PREFIX="${PREFIX%/}"
VENV="$PREFIX/venv"

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
# Run a command, or in a dry run print it (shell-quoted) instead.
run() {
    if [ "$DRY_RUN" = 1 ]; then
        printf '    [dry-run] %s\n' "$(printf '%q ' "$@" | sed 's/ $//')"
    else
        printf '    + %s\n' "$*"
        "$@"
    fi
}

# ---------------------------------------------------------------- 0. where we are
say "board-pi installer: source $SRC, prefix $PREFIX, config $CONFIG$([ "$DRY_RUN" = 1 ] && echo ', DRY RUN: nothing will be changed')"
if [ ! -f "$SRC/pyproject.toml" ] || [ ! -f "$SRC/systemd/board-pi.service" ]; then
    echo "install.sh: run me from a board-pi checkout ($SRC has no pyproject.toml)" >&2
    exit 1
fi
if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: needs root: sudo $0 $ARGS (or --dry-run to see the steps)" >&2
    exit 1
fi
if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    if [ "${VERSION_CODENAME:-}" != bookworm ]; then
        note "warning: made for Raspberry Pi OS Bookworm; this is ${PRETTY_NAME:-unknown}"
    fi
fi
if [ "$(uname -m)" != aarch64 ]; then
    note "warning: made for 64-bit Raspberry Pi OS (aarch64); this machine is $(uname -m)"
fi
if [ ! -x "$PYTHON" ]; then
    if [ "$DRY_RUN" = 1 ]; then note "warning: no $PYTHON here; the real install installs it with the packages"
    else echo "install.sh: $PYTHON not found (set BOARD_PI_PYTHON to the system's Python 3.11+)" >&2; exit 1; fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
    if [ "$DRY_RUN" = 1 ]; then note "warning: no apt-get here; the real install needs Raspberry Pi OS"
    else echo "install.sh: no apt-get: this installer is for Raspberry Pi OS (Debian)" >&2; exit 1; fi
fi

# ---------------------------------------------------------------- 1. Debian packages
say "1/6 Debian packages: ${APT_PACKAGES[*]}"
missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    note "all installed already"
else
    note "to install: ${missing[*]}"
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# ---------------------------------------------------------------- 2. the service user
say "2/6 system user $SERVICE_USER in the groups video, gpio, dialout"
if getent passwd "$SERVICE_USER" >/dev/null; then
    note "user $SERVICE_USER exists"
else
    run useradd --system --user-group --home-dir /var/lib/board-pi --no-create-home \
        --shell /usr/sbin/nologin --comment "board-pi Scrabble table" "$SERVICE_USER"
fi
for g in video gpio dialout; do
    if ! getent group "$g" >/dev/null; then
        note "no group $g on this system (gpio exists on Raspberry Pi OS only); skipped"
    elif id -nG "$SERVICE_USER" 2>/dev/null | tr ' ' '\n' | grep -qx "$g"; then
        note "already in $g"
    else
        run usermod -aG "$g" "$SERVICE_USER"
    fi
done

# ---------------------------------------------------------------- 3. the venv and board-pi
say "3/6 virtual environment $VENV (with the system's site packages) and board-pi from $SRC"
if [ -x "$VENV/bin/python" ] && grep -qiE '^include-system-site-packages *= *true' "$VENV/pyvenv.cfg" 2>/dev/null; then
    note "venv exists"
else
    if [ -e "$VENV" ]; then
        note "a venv without the system's packages (picamera2 would be invisible): making it again"
        run rm -rf "$VENV"
    fi
    run mkdir -p "$PREFIX"
    run "$PYTHON" -m venv --system-site-packages "$VENV"
fi
# pip must not replace the distribution's numpy, which picamera2 and simplejpeg are built against.
CONSTRAINTS="$PREFIX/constraints.txt"
numpy_version="$("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)"
if [ -n "$numpy_version" ]; then
    note "holding numpy at the system's $numpy_version"
    if [ "$DRY_RUN" = 1 ]; then
        printf '    [dry-run] write %s: numpy==%s\n' "$CONSTRAINTS" "$numpy_version"
    else
        mkdir -p "$PREFIX"
        printf 'numpy==%s\n' "$numpy_version" > "$CONSTRAINTS"
    fi
else
    note "no system numpy yet (the dry run skipped the packages); pip will choose"
    [ "$DRY_RUN" = 1 ] || : > "$CONSTRAINTS"
fi
run "$VENV/bin/python" -m pip install --quiet --upgrade pip
run "$VENV/bin/python" -m pip install --quiet --upgrade --constraint "$CONSTRAINTS" "$SRC"
run mkdir -p "$PREFIX/docs"
run cp -r "$SRC/docs/." "$PREFIX/docs/"
# `board-pi doctor` and `board-pi config ...` on the command line, for every user.
if [ "$(readlink /usr/local/bin/board-pi 2>/dev/null || true)" = "$VENV/bin/board-pi" ]; then
    note "/usr/local/bin/board-pi links to the venv"
else
    run ln -sfn "$VENV/bin/board-pi" /usr/local/bin/board-pi
fi

# ---------------------------------------------------------------- 4. the configuration
say "4/6 configuration $CONFIG"
if [ -e "$CONFIG" ]; then
    note "exists: kept as it is (the template is in the package: board-pi config init --force to start again)"
    if [ "$DRY_RUN" = 0 ] && ! "$VENV/bin/board-pi" config check "$CONFIG"; then
        note "warning: the configuration has problems (above); the service will not start until they are fixed"
    fi
else
    run mkdir -p "$(dirname "$CONFIG")"
    run "$VENV/bin/board-pi" config init "$CONFIG"
fi
# Readable by the service, not by everyone (an old one may hold a director's PIN hash; the PIN now
# lives in the service's state directory, /var/lib/board-pi/director-pin, which it can write).
run chown "root:$SERVICE_USER" "$CONFIG"
run chmod 0640 "$CONFIG"

# ---------------------------------------------------------------- 5. the unit
say "5/6 systemd unit $UNIT_DEST"
unit_text="$(sed -e "s|/opt/board-pi|$PREFIX|g" -e "s|/etc/board-pi/board-pi.toml|$CONFIG|g" "$SRC/systemd/board-pi.service")"
if [ -f "$UNIT_DEST" ] && [ "$(cat "$UNIT_DEST")" = "$unit_text" ]; then
    note "unchanged"
elif [ "$DRY_RUN" = 1 ]; then
    printf '    [dry-run] write %s from systemd/board-pi.service (prefix %s, config %s)\n' "$UNIT_DEST" "$PREFIX" "$CONFIG"
else
    printf '%s\n' "$unit_text" > "$UNIT_DEST.tmp"
    mv "$UNIT_DEST.tmp" "$UNIT_DEST"
    note "written"
fi
run systemctl daemon-reload
run systemctl enable board-pi.service

# ---------------------------------------------------------------- 6. start
say "6/6 start"
if [ "$START" = 1 ]; then
    run systemctl restart board-pi.service
else
    note "--no-start: start it with: sudo systemctl start board-pi"
fi

say "done$([ "$DRY_RUN" = 1 ] && echo ' (dry run: nothing was changed)')"
cat <<EOF
Next steps (docs/setup.md explains each):
  the director's PIN:     sudo board-pi config set-pin --config $CONFIG
  camera, clock, rules:   sudoedit $CONFIG   (then: sudo systemctl restart board-pi)
  check everything:       sudo -u $SERVICE_USER board-pi doctor --config $CONFIG
  the table's log:        journalctl -u board-pi -f
  the status page:        http://$(hostname 2>/dev/null || echo raspberrypi).local:8080/   (the port is web.port)
EOF
