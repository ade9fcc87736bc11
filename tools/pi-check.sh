#!/usr/bin/env bash
# The emulated Raspberry Pi check (minutes; not part of `make test`).  Needs root and a
# Debian host; installs qemu-user-static, mmdebstrap and systemd-container if missing.
#
#   sudo tools/pi-check.sh [--fresh] [--arch arm64|armhf] [--negatives] [WORKDIR]
#                                                           (WORKDIR: default /var/tmp/pi-check)
#
# --negatives breaks a copy of the clone three ways the issue found the check blind to and
# runs the check on each (minutes each): every one must fail at the step named for it.
#
# arm64 is Raspberry Pi OS 64-bit (Pi 3, 4, 5, Zero 2 W); armhf is the 32-bit one.
# NOSEC=1 leaves bookworm-security out of the root (for a mirror caught mid-sync).
#
# 1. builds a Debian Bookworm root of that architecture from Debian's own archive (kept in WORKDIR as
#    root.base; --fresh builds it again) and copies it for this run;
# 2. runs `./install.sh --port 80 --no-start` inside it (qemu-user-static) from a clone
#    owned by the user pi, with a stand-in /boot/firmware/config.txt and a stand-in
#    raspi-config (tools/pi-check/raspi-config): everything but starting the service;
#    the installer's own --print-paths says where it put things;
# 3. runs it again: every step must say it is already done (SPI already enabled,
#    config.txt already set), and both runs end with the reboot advice;
# 4. the clone is as it was (owner, files) and `make clean` works in it as pi;
# 5. opens the board stack there (tools/pi-check/board_check.py) as a Pi 4 and a Pi 5
#    (a fake /proc/cpuinfo), over stand-ins for /dev/gpiochip0 and /dev/spidev*.*, which
#    record every device node the stack opens;
# 6. proves what nspawn under qemu cannot enforce (DeviceAllow=, seccomp): every node
#    recorded is allowed by the unit, its module loads before the unit, udev gives it
#    one of the unit's groups (tools/pi-check/device_access.py);
# 7. boots the root with systemd-nspawn: the installed unit must reach "active" (the real
#    start-up, not --mock, with the stand-in lgpio/spidev on its PYTHONPATH) and serve
#    /healthz on port 80.
# One line per step with its time; a failure prints "FAILED: <step>: <reason>" and the
# log's end.
set -euo pipefail
FRESH=0
ARCH=arm64
NEGATIVES=0
RUN=""
REPO=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
    case $1 in
        --fresh) FRESH=1; shift ;;
        --arch) ARCH=${2:-}; shift 2 ;;
        --negatives) NEGATIVES=1; shift ;;
        # internal (--negatives): check another copy of the clone, in a run of its own
        --repo) REPO=$(cd "$2" && pwd); shift 2 ;;
        --run) RUN=$2; shift 2 ;;
        *) break ;;
    esac
done
BASE=${1:-/var/tmp/pi-check}
# The qemu binary for the architecture, and the Pis whose board stack is opened there.
case $ARCH in
    arm64) QEMU=aarch64; MODELS=("4B c03114" "5B d04170") ;;
    armhf) QEMU=arm; MODELS=("3B a02082" "4B c03114" "Zero2W 902120") ;;
    *) echo "pi-check: --arch is arm64 or armhf" >&2; exit 2 ;;
esac
W=$BASE/$ARCH
R=$W/root${RUN:+-$RUN}
LOG=$W/logs${RUN:+-$RUN}
T0=$(date +%s)
NSPAWN=""
mkdir -p "$W" "$LOG"

step() { STEP=$1; S0=$(date +%s); }
ok() { printf '[%4ds] %-34s ok (%ds)%s\n' $(($(date +%s) - T0)) "$STEP" $(($(date +%s) - S0)) "${1:+  $1}"; }
fail() {
    printf '[%4ds] %-34s FAILED: %s%s\n' $(($(date +%s) - T0)) "$STEP" "$STEP" "${1:+: $1}"
    [ -n "${2:-}" ] && [ -f "$2" ] && tail -25 "$2" | sed 's/^/    | /'
    exit 1
}
unmount_all() {
    [ -n "$NSPAWN" ] && kill "$NSPAWN" 2>/dev/null && sleep 5 && kill -9 "$NSPAWN" 2>/dev/null
    for m in proc/cpuinfo dev/pts dev sys proc; do
        mountpoint -q "$R/$m" 2>/dev/null && umount "$R/$m"
    done
    return 0
}
trap unmount_all EXIT
# The clone's files (git's list; a --negatives copy is no repository: all its files).
copy_clone() {
    if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$REPO" ls-files -z | (cd "$REPO" && xargs -0 cp --parents -t "$1")
    else
        (cd "$REPO" && find . -type f -print0 | xargs -0 cp --parents -t "$1")
    fi
}
in_root() {
    chroot "$R" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
        PIP_CERT=/etc/ssl/certs/ca-certificates.crt "$@"
}

if [ "$NEGATIVES" = 1 ]; then
    # Each breakage of a copy of the clone, and the step whose failure must name it.
    NEG=$W/negatives
    rm -rf "$NEG"; mkdir -p "$NEG"
    BREAKS=(
        "lsb_first|board stack on a Pi ${MODELS[0]%% *}|s/\"lsb_first\", False/\"lsb_first\", True/|companion/board/shift_register.py"
        "venv-under-root|boot with systemd-nspawn|/^PREFIX = /s#/opt/#/root/#|companion/pi/install.py"
        "no-char-spi|device access (DeviceAllow, groups, modules)|/^DeviceAllow=char-spi rw\$/d|companion/pi/data/pyramid-companion.service"
    )
    printf '%-16s %-46s %s\n' breakage "expected FAILED step" result
    status=0
    for b in "${BREAKS[@]}"; do
        IFS='|' read -r name want expr file <<< "$b"
        copy=$NEG/$name/pyramid-companion
        mkdir -p "$copy"
        copy_clone "$copy"
        before=$(md5sum "$copy/$file")
        sed -i -E "$expr" "$copy/$file"
        [ "$before" != "$(md5sum "$copy/$file")" ] || { echo "pi-check: $name changed nothing in $file" >&2; exit 2; }
        # From the last passing run's root when there is one (its venv has every package,
        # so only the broken companion is built again: minutes), else from root.base.
        # (NEG_FROM=base: root.base, e.g. while a passing run still uses its root.)
        from=$W/root.base
        [ "${NEG_FROM:-}" != base ] && [ -x "$W/root/usr/bin/python3" ] && ! mountpoint -q "$W/root/proc" && from=$W/root
        PI_CHECK_FROM=$from \
            "$copy/tools/pi-check.sh" --arch "$ARCH" --repo "$copy" --run "neg-$name" "$BASE" > "$NEG/$name.log" 2>&1 && got="(passed)" \
            || got=$(grep -m1 -o 'FAILED: .*' "$NEG/$name.log" | sed 's/^FAILED: //' || true)
        [ -n "$got" ] || got="no FAILED line (see $NEG/$name.log)"
        if [[ $got == "$want:"* ]]; then result="failed there: ${got#"$want: "}"; else result="WRONG: $got"; status=1; fi
        printf '%-16s %-46s %s\n' "$name" "$want" "${result:0:150}"
        rm -rf "$W/root-neg-$name"
    done
    exit $status
fi

step "host tools"
if ! command -v mmdebstrap >/dev/null || ! command -v systemd-nspawn >/dev/null \
    || [ ! -e /usr/bin/qemu-$QEMU-static ] || ! command -v arch-test >/dev/null; then
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends qemu-user-static \
        binfmt-support mmdebstrap arch-test systemd-container curl; } > "$LOG/host.log" 2>&1 \
        || fail "apt-get install of the host tools" "$LOG/host.log"
fi
ok

step "binfmt (qemu-$QEMU)"
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-$QEMU 2>/dev/null || true
arch-test $ARCH > "$LOG/arch-test.log" 2>&1 || fail "$ARCH binaries do not run here" "$LOG/arch-test.log"
ok

step "bookworm $ARCH root"
if [ "$FRESH" = 1 ] || [ ! -x "$W/root.base/usr/bin/python3" ]; then
    rm -rf "$W/root.base" "$W/root.tmp"
    M=http://deb.debian.org/debian
    # NOSEC=1 builds without bookworm-security (its armhf index was once stale on the mirror).
    SECURITY="deb http://deb.debian.org/debian-security bookworm-security main"
    [ "${NOSEC:-0}" = 1 ] && SECURITY=""
    mmdebstrap --arch=$ARCH --variant=important --aptopt='Acquire::Retries "3"' \
        --include=python3,python3-venv,python3-dev,python3-pip,gcc,make,ca-certificates,systemd,systemd-sysv,dbus,udev,avahi-daemon \
        --customize-hook='cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/" 2>/dev/null; chroot "$1" update-ca-certificates' \
        bookworm "$W/root.tmp" "deb $M bookworm main" "deb $M bookworm-updates main" \
        ${SECURITY:+"$SECURITY"} \
        > "$LOG/mmdebstrap.log" 2>&1 || fail "mmdebstrap" "$LOG/mmdebstrap.log"
    mv "$W/root.tmp" "$W/root.base"
    ok "built"
else
    ok "cached in $W/root.base (--fresh rebuilds)"
fi

step "copy the root for this run"
rm -rf "$R"
FROM=${PI_CHECK_FROM:-$W/root.base}  # --negatives: the last passing run's root
cp -a "$FROM" "$R"
CLONE=/home/pi/pyramid-companion
mkdir -p "$R/boot/firmware" "$R$CLONE"
printf '# stand-in for Raspberry Pi OS config.txt\ndtparam=audio=on\ncamera_auto_detect=1\n\n[all]\n' \
    > "$R/boot/firmware/config.txt"
install -m 755 "$REPO/tools/pi-check/raspi-config" "$R/usr/bin/raspi-config"
copy_clone "$R$CLONE"
cp /etc/resolv.conf "$R/etc/resolv.conf"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --bind /dev "$R/dev"
mount --bind /dev/pts "$R/dev/pts"
# No g++ (an older cached root has build-essential): the installer's gcc and python3-dev
# must be enough for every package built from source. make stays: the user's make clean.
in_root apt-get purge -y -qq build-essential g++ > "$LOG/purge.log" 2>&1 || fail "apt-get purge" "$LOG/purge.log"
in_root useradd --create-home --uid 1000 --shell /bin/sh pi 2>/dev/null || true
chown -R 1000:1000 "$R/home/pi"
ok "$(du -shx "$R" | cut -f1) from $(basename "$FROM")"

step "paths from the installer"
in_root "$CLONE/install.sh" --print-paths > "$LOG/paths.txt" 2> "$LOG/paths.err" \
    || fail "install.sh --print-paths" "$LOG/paths.err"
while IFS='=' read -r key value; do
    case $key in
        PREFIX|VENV|CONFIG_DIR|STATE_DIR|UNIT|UDEV_RULE|MODULES_LOAD|REBOOT_MARKER)
            [[ $value == /* ]] || fail "$key=$value is not an absolute path" "$LOG/paths.txt"
            printf -v "P_$key" '%s' "$value" ;;
    esac
done < "$LOG/paths.txt"
[ -n "${P_VENV:-}" ] && [ -n "${P_UNIT:-}" ] && [ -n "${P_MODULES_LOAD:-}" ] || fail "paths missing" "$LOG/paths.txt"
(cd "$R$CLONE" && find . -printf '%u %m %p\n' | sort) > "$LOG/clone-before.txt"
ok "venv $P_VENV, unit $P_UNIT"

step "install.sh --port 80 --no-start"
in_root "$CLONE/install.sh" --port 80 --no-start > "$LOG/install.log" 2>&1 \
    || fail "install.sh" "$LOG/install.log"
sed 's/^/    | /' "$LOG/install.log"
grep -q '^\[ok\] *enable SPI' "$LOG/install.log" || fail "raspi-config do_spi never ran" "$LOG/install.log"
grep -q '^reboot once.*spi1-1cs.*core_freq' "$LOG/install.log" || fail "no reboot advice naming spi1-1cs and core_freq" "$LOG/install.log"
ok

step "install.sh again (idempotent)"
cp "$R/boot/firmware/config.txt" "$LOG/config-after-1.txt"
in_root "$CLONE/install.sh" --port 80 --no-start > "$LOG/install2.log" 2>&1 \
    || fail "install.sh, second run" "$LOG/install2.log"
grep -E '^\[(ok|FAILED)' "$LOG/install2.log" | grep -v 'python packages' && fail "a step ran again" "$LOG/install2.log"
grep -q '^\[done\] *enable SPI: SPI already enabled' "$LOG/install2.log" || fail "no 'SPI already enabled'" "$LOG/install2.log"
grep -q '^\[done\] *firmware config: config.txt already set' "$LOG/install2.log" || fail "no 'config.txt already set'" "$LOG/install2.log"
cmp -s "$LOG/config-after-1.txt" "$R/boot/firmware/config.txt" || fail "config.txt changed on the second run" "$LOG/install2.log"
grep -q '^reboot once' "$LOG/install2.log" || fail "the reboot still pending was not said again" "$LOG/install2.log"
ok "$(grep -c '^\[done\]' "$LOG/install2.log") steps already done; the reboot advice again"

step "the clone as it was"
(cd "$R$CLONE" && find . -printf '%u %m %p\n' | sort) > "$LOG/clone-after.txt"
diff "$LOG/clone-before.txt" "$LOG/clone-after.txt" > "$LOG/clone.diff" || fail "the installer changed the clone" "$LOG/clone.diff"
in_root su pi -c "cd $CLONE && mkdir -p build x.egg-info && make clean && test ! -e build && test ! -e x.egg-info" \
    > "$LOG/make-clean.log" 2>&1 || fail "make clean as pi" "$LOG/make-clean.log"
ok "$(wc -l < "$LOG/clone-after.txt") entries, all pi's; make clean as pi"

step "no test tools in the venv"
if in_root "$P_VENV/bin/pip" list 2>/dev/null | grep -iE '^(pytest|playwright|mypy|ruff|hypothesis) '; then
    fail "test tools were installed"
fi
in_root "$P_VENV/bin/pip" freeze > "$LOG/pip-freeze.txt"
ok "$(wc -l < "$LOG/pip-freeze.txt") packages (pip freeze in $LOG/pip-freeze.txt)"

for model in "${MODELS[@]}"; do
    set -- $model
    step "board stack on a Pi $1"
    printf 'processor\t: 0\nHardware\t: BCM2835\nRevision\t: %s\nSerial\t\t: 10000000deadbeef\nModel\t\t: Raspberry Pi %s\n' \
        "$2" "$1" > "$W/cpuinfo-$1"
    mount --bind "$W/cpuinfo-$1" "$R/proc/cpuinfo"
    rm -rf "$R/opt/pi-check"; cp -r "$REPO/tools/pi-check" "$R/opt/pi-check"
    # QEMU_STRACE: qemu-user writes every syscall of the stack to stderr (the device step)
    in_root sh -c "cd /tmp && LG_WD=/tmp PI_CHECK_DEVICES=/tmp/devices-opened QEMU_STRACE=1 $P_VENV/bin/python \
        /opt/pi-check/board_check.py $1 /opt/pi-check" > "$LOG/board-$1.log" 2> "$LOG/board-$1.strace" \
        || { in_root sh -c "cd /tmp && LG_WD=/tmp $P_VENV/bin/python /opt/pi-check/board_check.py $1 /opt/pi-check" \
                 > "$LOG/board-$1.log" 2>&1 || true  # again without the syscall trace: the error alone
             umount "$R/proc/cpuinfo" || true
             fail "board_check.py: $(tail -1 "$LOG/board-$1.log")" "$LOG/board-$1.log"; }
    umount "$R/proc/cpuinfo"
    sed 's/^/    | /' "$LOG/board-$1.log"
    ok
done

step "device access (DeviceAllow, groups, modules)"
# nspawn under qemu enforces neither the device list nor seccomp: prove it from the files.
in_root systemd-analyze syscall-filter > "$LOG/syscall-filter.txt" 2>&1 || true
cat "$LOG"/board-*.strace > "$LOG/strace-all.txt"
python3 "$REPO/tools/pi-check/device_access.py" "$R" "$P_UNIT" "$P_MODULES_LOAD" "$P_VENV" \
    "$R/tmp/devices-opened" "$LOG/strace-all.txt" "$LOG/syscall-filter.txt" > "$LOG/device-access.log" 2>&1 \
    || fail "$(tail -1 "$LOG/device-access.log")" "$LOG/device-access.log"
sed 's/^/    | /; s/^    |     | /    | /' "$LOG/device-access.log"
ok

step "systemd-analyze verify (in the root)"
in_root systemd-analyze verify "$P_UNIT" > "$LOG/verify.log" 2>&1 \
    || fail "systemd-analyze verify" "$LOG/verify.log"
[ -s "$LOG/verify.log" ] && fail "systemd-analyze verify warned" "$LOG/verify.log"
ok

step "boot with systemd-nspawn"
for m in proc/cpuinfo dev/pts dev sys proc; do mountpoint -q "$R/$m" && umount "$R/$m"; done
# The Pi 4's cpuinfo at boot; the stand-in lgpio/spidev on the service's PYTHONPATH
# (qemu-user has no /dev/gpiochip0); a slow emulated start-up may take minutes.
mkdir -p "$R$P_UNIT.d"
cat > "$R$P_UNIT.d/pi-check.conf" <<'UNIT'
[Service]
Environment=PYTHONPATH=/opt/pi-check
BindReadOnlyPaths=/opt/pi-check/cpuinfo-4B:/proc/cpuinfo
TimeoutStartSec=600
WatchdogSec=120
UNIT
cat > "$R/etc/systemd/system/pi-check-report.service" <<'UNIT'
[Unit]
Description=pi-check: report the companion's state
After=pyramid-companion.service
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'for i in $(seq 600); do s=$(systemctl is-active pyramid-companion); [ "$s" = active ] || [ "$s" = failed ] && break; [ "$(systemctl show -p NRestarts --value pyramid-companion)" -ge 3 ] && break; sleep 1; done; systemctl show pyramid-companion -p ActiveState -p SubState -p User -p WorkingDirectory -p NRestarts > /root/unit-state; journalctl -u pyramid-companion --no-pager > /root/unit-journal'
[Install]
WantedBy=multi-user.target
UNIT
in_root systemctl enable pi-check-report.service > /dev/null 2>&1
rm -f "$R/root/unit-state"
mountpoint -q /run/systemd/nspawn || { mkdir -p /run/systemd/nspawn && mount -t tmpfs tmpfs /run/systemd/nspawn; }
cp "$W/cpuinfo-4B" "$R/opt/pi-check/cpuinfo-4B"
systemd-nspawn -D "$R" --register=no --keep-unit --boot --console=passive \
    > "$LOG/nspawn.log" 2>&1 &
NSPAWN=$!
for _ in $(seq 900); do [ -s "$R/root/unit-state" ] && break; sleep 1; done
[ -s "$R/root/unit-state" ] || fail "the unit never settled" "$LOG/nspawn.log"
tr '\n' ' ' < "$R/root/unit-state"; echo
grep -q '^ActiveState=active' "$R/root/unit-state" || fail "the unit is not active" "$R/root/unit-journal"
ok

step "GET /healthz on port 80"
curl -fsS --max-time 30 http://127.0.0.1/healthz > "$LOG/healthz.json" || fail "no answer on port 80" "$R/root/unit-journal"
echo "    | $(head -c 300 "$LOG/healthz.json")"
grep -E 'pin factory|ready on' "$R/root/unit-journal" | sed 's/^/    | /'
ok

step "shut down"
# SIGTERM asks the container's systemd to halt; under qemu that may hang, and a
# second SIGTERM makes nspawn end it at once.
kill "$NSPAWN"
for _ in $(seq 30); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 1; done
how="halted"
if kill -0 "$NSPAWN" 2>/dev/null; then kill "$NSPAWN"; how="ended by a second SIGTERM"; fi
wait "$NSPAWN" 2>/dev/null || true
NSPAWN=""
ok "$how"
echo "pi-check: all steps passed in $(($(date +%s) - T0)) s"
