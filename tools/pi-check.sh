#!/usr/bin/env bash
# The emulated Raspberry Pi check (minutes; not part of `make test`).  Needs root and a
# Debian host; installs qemu-user-static, mmdebstrap, systemd-container and (--boot vm)
# qemu-system-arm if missing.
#
#   sudo tools/pi-check.sh [--fresh] [--release bookworm|trixie] [--arch arm64|armhf]
#                          [--boot nspawn|vm]
#                          [--negatives] [--update-from REV | --no-update] [WORKDIR]
#                                                           (WORKDIR: default /var/tmp/pi-check)
#
# --release: the Debian release under Raspberry Pi OS (bookworm: Python 3.11, trixie:
# Python 3.13); each release and architecture has its own cached root.
# --boot nspawn|vm: how step 7 boots the root (default: nspawn on bookworm, vm on trixie).
# trixie's systemd 257 spawns every unit with clone3(), which qemu-user (10.0 too) answers
# ENOSYS, so under nspawn each unit fails with "Failed to spawn executor: Invalid argument".
# vm boots the root as a disk in qemu-system (Debian's own kernel of that release, kept in
# WORKDIR/RELEASE-ARCH/kernel): a real kernel under the unit's sandboxing (the stand-in
# lgpio/spidev open no device node, so the static device step still stands in for that).
# The update steps (8) run their commands and read the running root's files through
# nsenter (nspawn) or an agent in the machine on a forwarded port (vm:
# tools/pi-check/box_agent.py); the same steps either way.
# --negatives breaks a copy of the clone the ways earlier issues found the check blind to
# and runs the check on each (minutes each): every one must fail at the step named for it.
#
# arm64 is Raspberry Pi OS 64-bit (Pi 3, 4, 5, Zero 2 W); armhf is the 32-bit one.
# NOSEC=1 leaves RELEASE-security out of the root, NOUPDATES=1 RELEASE-updates (for a mirror
# whose index of that suite and architecture is stale: apt refuses it by size; armhf's have
# been, bookworm-security once and both of trixie's).
#
# 1. builds a Debian root of that release and architecture from Debian's own archive (kept
#    in WORKDIR/RELEASE-ARCH as root.base; --fresh builds it again), without what the
#    installer's apt step installs (python3-venv, python3-dev, gcc, swig, avahi-daemon), so
#    that step runs for real; copies it for this run;
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
#    Before the install, a piwheels stand-in (an index on the host holding the wheels
#    earlier runs built from sources) is named in the root's /etc/pip.conf as Raspberry
#    Pi OS names piwheels; the install must say it used it;
# 7. boots the root (--boot: systemd-nspawn, or qemu-system on trixie): the installed unit
#    must reach "active" (the real start-up, not --mock, with the stand-in lgpio/spidev on
#    its PYTHONPATH), serve /healthz on port 80 and run with the limits it needs;
# 8. updates, in the booted root: the previous commit (HEAD~1, or --update-from REV) is
#    installed from a git clone owned by pi (its installer, with the start), the host sets
#    up a game (the journal), a secret key of our own is put in place and a board.toml
#    the table edited; then `install.sh update` pulls this checkout: the service must
#    restart and answer /healthz with the venv now this checkout's, the same game and
#    host cookie (journal and secret key), board.toml unchanged, the removed key named
#    and the new key at its default.  A stand-in: the previous commit's example board
#    config is given one key this version's examples no longer have (leds.layout.stride)
#    and lacks one they have (leds.gamma), so that both kinds of change are there to be
#    named.  Then an update to a commit whose venv cannot be installed (a pin that no
#    index has) must put this checkout back, running, with the same data, and so must one
#    to a version that never answers /healthz.  Then five updates are killed (SIGKILL to
#    the updater's process group) after the fetch, during pip, during the new venv's
#    check, right after the switch and while systemctl restart runs: each time the table
#    answers with its data, and `install.sh update` again finishes the job.
#    --no-update leaves step 8 out (--negatives does).
# One line per step with its time; a failure prints "FAILED: <step>: <reason>" and the
# log's end.
set -euo pipefail
FRESH=0
ARCH=arm64
RELEASE=bookworm
NEGATIVES=0
UPDATE_FROM=HEAD~1
BOOT=""
RUN=""
REPO=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
    case $1 in
        --fresh) FRESH=1; shift ;;
        --arch) ARCH=${2:-}; shift 2 ;;
        --release) RELEASE=${2:-}; shift 2 ;;
        --negatives) NEGATIVES=1; shift ;;
        --update-from) UPDATE_FROM=${2:-}; shift 2 ;;
        --no-update) UPDATE_FROM=""; shift ;;
        --boot) BOOT=${2:-}; shift 2 ;;
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
case $RELEASE in
    bookworm|trixie) ;;
    *) echo "pi-check: --release is bookworm or trixie" >&2; exit 2 ;;
esac
# Step 7's boot: nspawn under qemu-user (bookworm's systemd 252), or a full-system emulator
# (trixie's systemd 257 spawns every unit with clone3, which qemu-user does not have).
[ -n "$BOOT" ] || { [ "$RELEASE" = trixie ] && BOOT=vm || BOOT=nspawn; }
case $BOOT in
    nspawn) ;;
    vm) ;;
    *) echo "pi-check: --boot is nspawn or vm" >&2; exit 2 ;;
esac
[ "$BOOT" = nspawn ] && BOOT_STEP="boot with systemd-nspawn" || BOOT_STEP="boot with qemu-system-$QEMU"
W=$BASE/$RELEASE-$ARCH
R=$W/root${RUN:+-$RUN}
LOG=$W/logs${RUN:+-$RUN}
T0=$(date +%s) STEP=setup S0=$T0
NSPAWN=""
VM=""
PIW_PID=""
mkdir -p "$W" "$LOG"

step() { STEP=$1; S0=$(date +%s); }
ok() { printf '[%4ds] %-34s ok (%ds)%s\n' $(($(date +%s) - T0)) "$STEP" $(($(date +%s) - S0)) "${1:+  $1}"; }
fail() {
    printf '[%4ds] %-34s FAILED: %s%s\n' $(($(date +%s) - T0)) "$STEP" "$STEP" "${1:+: $1}"
    [ -n "${2:-}" ] && [ -f "$2" ] && tail -25 "$2" | sed 's/^/    | /'
    exit 1
}
# (every line || true: under set -e a kill of a process already gone would end the trap
# there, leaving the rest running, and turn a passed check's status into 1)
unmount_all() {
    if [ -n "$NSPAWN" ]; then
        # nspawn killed leaves the container's PID 1 (qemu-user) running: end it too, and
        # its whole PID namespace ends with it.
        local leader; leader=$(pgrep -P "$NSPAWN" | head -1 || true)
        { kill "$NSPAWN" 2>/dev/null && sleep 5 && kill -9 "$NSPAWN" 2>/dev/null; } || true
        { [ -n "$leader" ] && kill -9 "$leader" 2>/dev/null; } || true
    fi
    { [ -n "$VM" ] && kill "$VM" 2>/dev/null && sleep 2 && kill -9 "$VM" 2>/dev/null; } || true
    { [ -n "$PIW_PID" ] && kill "$PIW_PID" 2>/dev/null; } || true
    for m in proc/cpuinfo dev/pts dev sys proc; do
        { mountpoint -q "$R/$m" 2>/dev/null && umount "$R/$m"; } || true
    done
    return 0
}
trap unmount_all EXIT
# A command that ends the check under set -e says so, as a failed step does.
trap 'fail "line $LINENO: \`$BASH_COMMAND\` failed"' ERR
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

# In the booted root (step 8): a command in its namespaces (nspawn), or through the agent
# on the forwarded port (vm: tools/pi-check/box_agent.py); every file of the running root
# is read through it, so that both boots run the same steps.
in_box() {
    local env=(/usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
               HOME=/root LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
    if [ -n "$VM" ]; then python3 "$REPO/tools/pi-check/box_agent.py" run "127.0.0.1:$AGENT_PORT" "${env[@]}" "$@"
    else nsenter -t "$LEADER" -m -u -i -p -r -w -- "${env[@]}" "$@"; fi
}
# /healthz within N seconds (the host's way in: port 80, or the port forwarded to it)
healthz_within() {
    for _ in $(seq "$1"); do curl -fsS --max-time 5 "$URL/healthz" > /dev/null 2>&1 && return 0; sleep 1; done
    return 1
}
# git for the update's upstream and clone, run by root on files owned by pi
g() { git -c user.name=pi-check -c user.email=pi-check@localhost -c safe.directory='*' "$@"; }

if [ "$NEGATIVES" = 1 ]; then
    # Each breakage of a copy of the clone, and the step whose failure must name it.
    NEG=$W/negatives
    REPO_HEAD=$(git -C "$REPO" rev-parse HEAD~1 2>/dev/null || echo HEAD~1)
    rm -rf "$NEG"; mkdir -p "$NEG"
    # (the last field: "update" when the breakage needs the update steps to show)
    BREAKS=(
        "lsb_first|board stack on a Pi ${MODELS[0]%% *}|s/\"lsb_first\", False/\"lsb_first\", True/|companion/board/shift_register.py|"
        "venv-under-root|$BOOT_STEP|/^PREFIX = /s#/opt/#/root/#|companion/pi/install.py|"
        "no-char-spi|device access (DeviceAllow, groups, modules)|/^DeviceAllow=char-spi rw\$/d|companion/pi/data/pyramid-companion.service|"
        "no-cdc_acm|device access (DeviceAllow, groups, modules)|s/^KERNEL_MODULES = \(\"spidev\", \"cdc_acm\"\)/KERNEL_MODULES = (\"spidev\",)/|companion/pi/install.py|"
        "modules-not-conf|device access (DeviceAllow, groups, modules)|s#modules-load.d/pyramid-companion.conf#modules-load.d/pyramid-companion#|companion/pi/install.py|"
        "no-LimitNOFILE|the unit's limits as started|/^LimitNOFILE=/d|companion/pi/data/pyramid-companion.service|"
        "no-rollback|an update that never answers is put back|s/^    if ok and not answers:\$/    if False:/|companion/pi/install.py|update"
    )
    printf '%-16s %-46s %s\n' breakage "expected FAILED step" result
    status=0
    for b in "${BREAKS[@]}"; do
        IFS='|' read -r name want expr file needs <<< "$b"
        # ONLY="name ...": just those breakages
        [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && continue
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
        PI_CHECK_FROM=$from PI_CHECK_GIT=$REPO \
            "$copy/tools/pi-check.sh" --release "$RELEASE" --arch "$ARCH" --repo "$copy" --run "neg-$name" \
            $([ "$needs" = update ] && echo --update-from "$REPO_HEAD" || echo --no-update) "$BASE" > "$NEG/$name.log" 2>&1 && got="(passed)" \
            || got=$(grep -m1 -o 'FAILED: .*' "$NEG/$name.log" | sed 's/^FAILED: //' || true)
        [ -n "$got" ] || got="no FAILED line (see $NEG/$name.log)"
        if [[ $got == "$want:"* ]]; then result="failed there: ${got#"$want: "}"; else result="WRONG: $got"; status=1; fi
        printf '%-16s %-46s %s\n' "$name" "$want" "${result:0:150}"
        rm -rf "$W/root-neg-$name"
    done
    exit $status
fi

# The repository holding the previous commit (--negatives: its copies are no repository).
GIT=${PI_CHECK_GIT:-$REPO}
if [ -n "$UPDATE_FROM" ]; then
    PREV=$(git -C "$GIT" rev-parse --verify -q "$UPDATE_FROM^{commit}") \
        || { echo "pi-check: --update-from $UPDATE_FROM is no commit of $GIT (--no-update leaves the update out)" >&2; exit 2; }
fi

step "host tools"
if ! command -v mmdebstrap >/dev/null || ! command -v systemd-nspawn >/dev/null \
    || [ ! -e /usr/bin/qemu-$QEMU-static ] || ! command -v arch-test >/dev/null || ! command -v ss >/dev/null \
    || { [ "$BOOT" = vm ] && ! command -v qemu-system-$QEMU >/dev/null; }; then
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends qemu-user-static \
        binfmt-support mmdebstrap arch-test systemd-container curl iproute2 \
        $([ "$BOOT" = vm ] && echo qemu-system-arm e2fsprogs); } > "$LOG/host.log" 2>&1 \
        || fail "apt-get install of the host tools" "$LOG/host.log"
fi
ok

step "binfmt (qemu-$QEMU)"
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-$QEMU 2>/dev/null || true
arch-test $ARCH > "$LOG/arch-test.log" 2>&1 || fail "$ARCH binaries do not run here" "$LOG/arch-test.log"
ok

step "$RELEASE $ARCH root"
if [ "$FRESH" = 1 ] || [ ! -x "$W/root.base/usr/bin/python3" ]; then
    rm -rf "$W/root.base" "$W/root.tmp"
    M=http://deb.debian.org/debian
    SECURITY="deb http://deb.debian.org/debian-security $RELEASE-security main"
    UPDATES="deb $M $RELEASE-updates main"
    [ "${NOSEC:-0}" = 1 ] && SECURITY=""
    [ "${NOUPDATES:-0}" = 1 ] && UPDATES=""
    mmdebstrap --arch=$ARCH --variant=important --aptopt='Acquire::Retries "3"' \
        --include=python3,ca-certificates,systemd,systemd-sysv,dbus,udev,make,git \
        --customize-hook='cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/" 2>/dev/null; chroot "$1" update-ca-certificates' \
        "$RELEASE" "$W/root.tmp" "deb $M $RELEASE main" ${UPDATES:+"$UPDATES"} \
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
in_root sh -c 'for p in build-essential g++; do if dpkg -s $p >/dev/null 2>&1; then apt-get purge -y -qq $p || exit 1; fi; done' \
    > "$LOG/purge.log" 2>&1 || fail "apt-get purge" "$LOG/purge.log"
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
# --negatives: the last passing run's root holds that run's game and its host; a fresh
# table has neither (its update steps set up a game of their own as the host).
[ "$FROM" != "$W/root.base" ] && [ -n "${P_STATE_DIR:-}" ] && rm -rf "$R$P_STATE_DIR"
(cd "$R$CLONE" && find . -printf '%u %m %p\n' | sort) > "$LOG/clone-before.txt"
ok "venv $P_VENV, unit $P_UNIT"

step "piwheels stand-in in /etc/pip.conf"
# Raspberry Pi OS names piwheels (wheels it built from PyPI's sources) in /etc/pip.conf.
# The stand-in: an index on the host serving the wheels earlier runs built from sources
# (WORKDIR/RELEASE-ARCH/piwheels), named in the root's /etc/pip.conf the same way.
# (a port per release and architecture: two checks may run at once)
case $RELEASE-$ARCH in bookworm-arm64) n=1 ;; bookworm-armhf) n=2 ;; trixie-arm64) n=3 ;; *) n=4 ;; esac
PIW=$W/piwheels PIW_PORT=${PIW_PORT:-$((18180 + n))}
mkdir -p "$PIW/files"
rm -rf "$PIW/piwheels"; mkdir -p "$PIW/piwheels/simple"
for whl in "$PIW"/files/*.whl; do
    [ -e "$whl" ] || continue
    name=$(basename "$whl" | cut -d- -f1 | tr '_.' '--' | tr 'A-Z' 'a-z')
    mkdir -p "$PIW/piwheels/simple/$name"
    printf '<a href="/files/%s">%s</a>\n' "$(basename "$whl")" "$(basename "$whl")" >> "$PIW/piwheels/simple/$name/index.html"
done
ln -sfn ../files "$PIW/piwheels/files"
(cd "$PIW" && exec python3 -m http.server --bind 127.0.0.1 "$PIW_PORT") > "$LOG/piwheels.log" 2>&1 &
PIW_PID=$!
printf '[global]\nextra-index-url=http://127.0.0.1:%s/piwheels/simple\n' "$PIW_PORT" > "$R/etc/pip.conf"
for _ in $(seq 20); do curl -fs -o /dev/null "http://127.0.0.1:$PIW_PORT/piwheels/simple/" && break; sleep 0.5; done
curl -fs -o /dev/null "http://127.0.0.1:$PIW_PORT/piwheels/simple/" || fail "the stand-in index does not answer" "$LOG/piwheels.log"
# (the answer must be this run's: an earlier run's index left on the port would answer
# with its own log, and the asks counted here would be none)
ss -Hltnp "sport = :$PIW_PORT" | grep -q "pid=$PIW_PID," \
    || fail "port $PIW_PORT is another process's: $(ss -Hltnp "sport = :$PIW_PORT" | grep -o 'users:.*' || true)" "$LOG/piwheels.log"
ok "$(ls "$PIW"/files/*.whl 2>/dev/null | wc -l) wheels on http://127.0.0.1:$PIW_PORT/piwheels/simple"

step "install.sh --port 80 --no-start"
in_root "$CLONE/install.sh" --port 80 --no-start > "$LOG/install.log" 2>&1 \
    || fail "install.sh" "$LOG/install.log"
sed 's/^/    | /' "$LOG/install.log"
grep -q "^\[ok\] *release: .*($RELEASE), Python 3" "$LOG/install.log" || fail "no '[ok] release' line naming $RELEASE" "$LOG/install.log"
# (--negatives starts from the last passing run's root, which has the packages already)
if [ "$FROM" = "$W/root.base" ]; then
    grep -q '^\[ok\] *apt packages' "$LOG/install.log" || fail "the apt step did not run on a root lacking its packages" "$LOG/install.log"
fi
grep -q '^\[ok\] *enable SPI' "$LOG/install.log" || fail "raspi-config do_spi never ran" "$LOG/install.log"
grep -q '^\[ok\] *python packages: .*; PyPI and piwheels (/etc/pip.conf)' "$LOG/install.log" \
    || fail "the python packages step did not say it used piwheels" "$LOG/install.log"
# (the stand-in stays up: the updates below read /etc/pip.conf too)
SERVED=$(grep -o 'GET /files/[^ ]*\.whl' "$LOG/piwheels.log" | sed 's#GET /files/##' | sort -u | tr '\n' ' ' || true)
# What was built from sources here, for the stand-in's next run.
cp -n "$R"/var/cache/pyramid-companion/wheels/*/*-linux_*.whl "$PIW/files/" 2>/dev/null || true
grep -q '^reboot once.*spi1-1cs.*core_freq' "$LOG/install.log" || fail "no reboot advice naming spi1-1cs and core_freq" "$LOG/install.log"
ok "from the piwheels stand-in: ${SERVED:-nothing (PyPI had every wheel, or none built yet)}"

step "install.sh again (idempotent)"
cp "$R/boot/firmware/config.txt" "$LOG/config-after-1.txt"
# A plain re-run (no --port) with no network at all: the port is remembered, nothing is
# fetched (unshare -n: a network namespace with only a loopback that is down).
unshare -n chroot "$R" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 "$CLONE/install.sh" --no-start > "$LOG/install2.log" 2>&1 \
    || fail "install.sh, second run (plain, offline)" "$LOG/install2.log"
grep -E '^\[(ok|FAILED)' "$LOG/install2.log" | grep -v ' release: ' && fail "a step ran again" "$LOG/install2.log"
grep -q '^\[done\] *python packages: the venv already holds this version' "$LOG/install2.log" || fail "the venv was built again" "$LOG/install2.log"
grep -q '^\[done\] *enable SPI: SPI already enabled' "$LOG/install2.log" || fail "no 'SPI already enabled'" "$LOG/install2.log"
grep -q '^\[done\] *firmware config: config.txt already set' "$LOG/install2.log" || fail "no 'config.txt already set'" "$LOG/install2.log"
cmp -s "$LOG/config-after-1.txt" "$R/boot/firmware/config.txt" || fail "config.txt changed on the second run" "$LOG/install2.log"
grep -q '^reboot once' "$LOG/install2.log" || fail "the reboot still pending was not said again" "$LOG/install2.log"
[ -f "$R$P_UNIT.d/port80.conf" ] || fail "the plain re-run dropped port 80" "$LOG/install2.log"
ok "$(grep -c '^\[done\]' "$LOG/install2.log") steps already done, offline, port 80 kept; the reboot advice again"

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

if [ -n "$UPDATE_FROM" ]; then
    step "git in the root (for the update)"
    # A table's clone came with git; the bare Debian root has none.
    in_root sh -c 'command -v git >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends git; }' \
        > "$LOG/git.log" 2>&1 || fail "apt-get install git" "$LOG/git.log"
    ok "$(in_root git --version)"
fi

if [ -n "$UPDATE_FROM" ]; then
    # The update's commits, an upstream holding them and the table's clone of it, made in
    # the root before it boots (a vm's disk is the root as it was then).
    TABLE=/home/pi/table UPSTREAM=/home/pi/upstream.git
    UPD=$W/update${RUN:+-$RUN}
    step "the update's commits and the table's clone"
    rm -rf "$UPD" "$R$TABLE" "$R$UPSTREAM"; mkdir -p "$UPD/work"
    git -C "$GIT" archive "$PREV" | tar -x -C "$UPD/work"
    # The stand-in change of the previous example (see the top): the table's board.toml,
    # written from it below, then has a removed key and lacks a new one.
    examples=$UPD/work/companion/board/data
    grep -q '^gamma = ' "$examples/reference-1-pi.toml" && grep -q '^\[leds\.layout\]$' "$examples/reference-1-pi.toml" \
        || fail "the previous commit's reference-1-pi.toml has no gamma or [leds.layout]"
    sed -i -E '/^gamma = /d' "$examples"/*.toml
    sed -i -E 's/^\[leds\.layout\]$/[leds.layout]\nstride = 12/' "$examples/reference-1-pi.toml"
    { g -C "$UPD/work" init -q -b main && g -C "$UPD/work" add -A \
        && g -C "$UPD/work" commit -qm "previous: ${PREV:0:10}, its example without gamma, with stride"; } \
        > "$LOG/update-git.log" 2>&1 || fail "git commit of the previous commit" "$LOG/update-git.log"
    OLD=$(g -C "$UPD/work" rev-parse HEAD)
    find "$UPD/work" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    copy_clone "$UPD/work"
    g -C "$UPD/work" add -A && g -C "$UPD/work" commit -qm "new: this checkout" >> "$LOG/update-git.log" 2>&1
    NEW=$(g -C "$UPD/work" rev-parse HEAD)
    grep -q '^gpiozero==' "$UPD/work/constraints-pi.txt" || fail "constraints-pi.txt pins no gpiozero"
    printf 'gpiozero==0.0.1  # pi-check: no index has it\n' >> "$UPD/work/constraints-pi.txt"
    g -C "$UPD/work" commit -qam "broken: a pin no index has" >> "$LOG/update-git.log" 2>&1
    BAD=$(g -C "$UPD/work" rev-parse HEAD)
    # A version that installs and starts but never answers /healthz (its route renamed).
    g -C "$UPD/work" reset -q --hard "$NEW"
    sed -i 's#^@bp.get("/healthz")#@bp.get("/healthz-never")#' "$UPD/work/companion/web/health.py"
    grep -q 'healthz-never' "$UPD/work/companion/web/health.py" || fail "companion/web/health.py has no /healthz route to silence"
    g -C "$UPD/work" commit -qam "silent: never answers /healthz" >> "$LOG/update-git.log" 2>&1
    SILENT=$(g -C "$UPD/work" rev-parse HEAD)
    # The killed updates' commits (see below), one after the other: a comment more each,
    # so each has a new venv to build.
    g -C "$UPD/work" reset -q --hard "$NEW"
    KILLS=()
    for point in "the fetch" "pip" "the new venv's check" "the switch" "the restart"; do
        printf '# pi-check: an update killed at %s\n' "$point" >> "$UPD/work/companion/__init__.py"
        g -C "$UPD/work" commit -qam "kill point: $point" >> "$LOG/update-git.log" 2>&1
        KILLS+=("$(g -C "$UPD/work" rev-parse HEAD)")
    done
    KILL_REFS=(); for i in "${!KILLS[@]}"; do KILL_REFS+=("${KILLS[$i]}:refs/heads/kill-$i"); done
    { g init -q --bare -b main "$R$UPSTREAM" && g -C "$UPD/work" push -q "$R$UPSTREAM" "$OLD:refs/heads/main" \
        && g clone -q "$R$UPSTREAM" "$R$TABLE" && g -C "$R$TABLE" remote set-url origin "$UPSTREAM" \
        && g -C "$UPD/work" push -q "$R$UPSTREAM" "$NEW:refs/heads/main" "$BAD:refs/heads/broken" "$SILENT:refs/heads/silent" "${KILL_REFS[@]}"; } \
        >> "$LOG/update-git.log" 2>&1 || fail "the upstream and the table's clone" "$LOG/update-git.log"
    chown -R 1000:1000 "$R$UPSTREAM" "$R$TABLE"
    ok "${OLD:0:10} (previous) -> ${NEW:0:10} (this checkout), a broken, a silent and five more in $UPSTREAM"
fi

if [ "$BOOT" = vm ]; then
    step "a kernel for qemu-system-$QEMU"
    # Debian's own kernel of that release, its modules in the root (virtio, ext4 from the
    # initrd); built once into WORKDIR/RELEASE-ARCH/kernel, then copied into each run's root.
    case $ARCH in arm64) KPKG=linux-image-arm64 ;; armhf) KPKG=linux-image-armmp-lpae ;; esac
    K=$W/kernel
    if [ ! -s "$K/vmlinuz" ]; then
        rm -rf "$K"; mkdir -p "$K/modules"
        # The disk's driver by name: armmp-lpae's initramfs (MODULES=most picks block drivers
        # by their symbols) came without virtio_blk, and its boot waited for /dev/vda.
        mkdir -p "$R/usr/share/initramfs-tools/modules.d"
        printf 'virtio_blk\n' > "$R/usr/share/initramfs-tools/modules.d/pi-check"
        in_root sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $KPKG initramfs-tools" \
            > "$LOG/kernel.log" 2>&1 || fail "apt-get install $KPKG" "$LOG/kernel.log"
        cp "$(ls "$R"/boot/vmlinuz-* | tail -1)" "$K/vmlinuz"
        cp "$(ls "$R"/boot/initrd.img-* | tail -1)" "$K/initrd.img"
        cp -a "$R"/usr/lib/modules/. "$K/modules/"
        ok "$KPKG installed, kept in $K"
    else
        mkdir -p "$R/usr/lib/modules"; cp -a "$K/modules/." "$R/usr/lib/modules/"
        ok "cached in $K"
    fi
fi

# (the report's state file comes last, in one rename: under nspawn the host reads the
# others as soon as it is there)
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
ExecStart=/bin/sh -c 'for i in $(seq 600); do s=$(systemctl is-active pyramid-companion); [ "$s" = active ] || [ "$s" = failed ] && break; [ "$(systemctl show -p NRestarts --value pyramid-companion)" -ge 3 ] && break; sleep 1; done; systemctl show pyramid-companion -p LimitNOFILE -p LimitNOFILESoft > /root/unit-limits-show; cat /proc/$(systemctl show -p MainPID --value pyramid-companion)/limits > /root/unit-limits; journalctl -u pyramid-companion --no-pager > /root/unit-journal; systemctl show pyramid-companion -p ActiveState -p SubState -p User -p WorkingDirectory -p NRestarts > /root/unit-state.new; mv /root/unit-state.new /root/unit-state; [ -e /dev/virtio-ports/pi-check ] || exit 0; { for f in unit-state unit-limits-show unit-limits unit-journal; do echo "PI-CHECK-FILE $f"; cat /root/$f; done; echo PI-CHECK-END; } > /dev/virtio-ports/pi-check'
[Install]
WantedBy=multi-user.target
UNIT
in_root systemctl enable pi-check-report.service > /dev/null 2>&1
# Two checks at once: the booted root's port 80 is the host's (nspawn) or forwarded to a
# fixed port (vm), so a second check waits until the first one's machine is gone (a lock
# per port, held until this check ends, and nothing else listening there).
hold_port() {
    local fd t0=$(date +%s)
    exec {fd}> "/run/pi-check-port-$1.lock"
    flock "$fd"
    for _ in $(seq 5400); do
        if ! ss -Hltn "sport = :$1" | grep -q .; then
            [ $(($(date +%s) - t0)) -lt 2 ] || echo "    | waited $(($(date +%s) - t0)) s for port $1"
            return 0
        fi
        sleep 1
    done
    fail "port $1 is still taken (another check's booted root?)"
}
step "$BOOT_STEP"
cp "$W/cpuinfo-4B" "$R/opt/pi-check/cpuinfo-4B"
if [ "$BOOT" = nspawn ]; then
for m in proc/cpuinfo dev/pts dev sys proc; do mountpoint -q "$R/$m" && umount "$R/$m"; done
rm -f "$R/root/unit-state"
mountpoint -q /run/systemd/nspawn || { mkdir -p /run/systemd/nspawn && mount -t tmpfs tmpfs /run/systemd/nspawn; }
hold_port 80
systemd-nspawn -D "$R" --register=no --keep-unit --boot --console=passive \
    > "$LOG/nspawn.log" 2>&1 &
NSPAWN=$!
for _ in $(seq 900); do [ -s "$R/root/unit-state" ] && break; sleep 1; done
[ -s "$R/root/unit-state" ] || fail "the unit never settled" "$LOG/nspawn.log"
URL=http://127.0.0.1
else
# The report leaves the machine on a virtio serial port (the report unit writes there when
# it exists); the network by DHCP from qemu, port 80 forwarded to the host's $VM_PORT.
in_root systemctl enable systemd-networkd.service > /dev/null 2>&1
mkdir -p "$R/etc/systemd/network"
printf '[Match]\nName=en* eth*\n[Network]\nDHCP=ipv4\n' > "$R/etc/systemd/network/10-pi-check.network"
printf '/dev/vda / ext4 rw,noatime 0 1\n' > "$R/etc/fstab"
# The update steps' commands come in through the agent; the piwheels stand-in is the
# host's loopback, which qemu's user network shows the machine as 10.0.2.2.
AGENT_PORT=${AGENT_PORT:-18022}
cat > "$R/etc/systemd/system/pi-check-agent.service" <<'UNIT'
[Unit]
Description=pi-check: the host's commands (tools/pi-check/box_agent.py)
[Service]
ExecStart=/usr/bin/python3 /opt/pi-check/box_agent.py serve 8022
[Install]
WantedBy=multi-user.target
UNIT
in_root systemctl enable pi-check-agent.service > /dev/null 2>&1
# (pip takes plain http from loopback only: piwheels itself is https, the stand-in is not)
sed -i 's#//127\.0\.0\.1:#//10.0.2.2:#' "$R/etc/pip.conf"
printf 'trusted-host=10.0.2.2\n' >> "$R/etc/pip.conf"
rm -f "$R"/root/unit-*
for m in proc/cpuinfo dev/pts dev sys proc; do mountpoint -q "$R/$m" && umount "$R/$m"; done
IMG=$W/vm${RUN:+-$RUN}.img
# (room for the update steps' venvs, the old one kept beside each new one)
rm -f "$IMG"; truncate -s $(( $(du -smx "$R" | cut -f1) + ${UPDATE_FROM:+4096} + 2048 ))M "$IMG"
mkfs.ext4 -q -F -L root -d "$R" "$IMG" > "$LOG/mkfs.log" 2>&1 || fail "mkfs.ext4 -d of the root" "$LOG/mkfs.log"
VM_PORT=${VM_PORT:-18080}
hold_port "$VM_PORT"; hold_port "$AGENT_PORT"
case $ARCH in arm64) CPU=cortex-a72 ;; armhf) CPU=cortex-a15 ;; esac
: > "$LOG/vm-report.txt"
qemu-system-$QEMU -M virt -cpu $CPU -smp 2 -m 2048 -nographic -no-reboot \
    -kernel "$W/kernel/vmlinuz" -initrd "$W/kernel/initrd.img" \
    -append "root=/dev/vda rw console=ttyAMA0" -drive "file=$IMG,format=raw,if=virtio" \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$VM_PORT-:80,hostfwd=tcp:127.0.0.1:$AGENT_PORT-:8022" \
    -device virtio-net-pci,netdev=n0,romfile= \
    -device virtio-serial-pci -chardev "file,id=rep,path=$LOG/vm-report.txt" \
    -device virtserialport,chardev=rep,name=pi-check \
    < /dev/null > "$LOG/vm-console.log" 2>&1 &
VM=$!
for _ in $(seq 900); do
    grep -q '^PI-CHECK-END' "$LOG/vm-report.txt" && break
    kill -0 "$VM" 2>/dev/null || break
    # (the initramfs's shell waits for ever: say why now)
    grep -q 'Dropping to a shell' "$LOG/vm-console.log" \
        && fail "the machine's initramfs found no root: $(grep -m1 'ALERT' "$LOG/vm-console.log")" "$LOG/vm-console.log"
    sleep 1
done
if ! grep -q '^PI-CHECK-END' "$LOG/vm-report.txt"; then
    kill -0 "$VM" 2>/dev/null || fail "qemu-system-$QEMU ended before the unit settled: $(tail -1 "$LOG/vm-console.log")" "$LOG/vm-console.log"
    fail "the unit never settled" "$LOG/vm-console.log"
fi
awk -v d="$R/root" '/^PI-CHECK-END/{exit} /^PI-CHECK-FILE /{f=d "/" $2; printf "" > f; next} f{print >> f}' "$LOG/vm-report.txt"
URL=http://127.0.0.1:$VM_PORT
fi
tr '\n' ' ' < "$R/root/unit-state"; echo
grep -q '^ActiveState=active' "$R/root/unit-state" || fail "the unit is not active" "$R/root/unit-journal"
ok

step "GET /healthz on port 80"
curl -fsS --max-time 30 "$URL/healthz" > "$LOG/healthz.json" || fail "no answer on port 80" "$R/root/unit-journal"
echo "    | $(head -c 300 "$LOG/healthz.json")"
grep -E 'pin factory|ready on' "$R/root/unit-journal" | sed 's/^/    | /' || true
ok

step "the unit's limits as started"
python3 "$REPO/tools/pi-check/limits_check.py" "$R/root/unit-limits-show" "$R/root/unit-limits" \
    "$REPO/companion/service/webserver.py" > "$LOG/limits.log" 2>&1 || fail "$(tail -1 "$LOG/limits.log")" "$LOG/limits.log"
ok "$(cat "$LOG/limits.log")"

if [ -n "$UPDATE_FROM" ]; then
    [ "$BOOT" = vm ] || LEADER=$(pgrep -P "$NSPAWN" | head -1)
    # The checks run in the root, by its python3 (the standard library only).
    CHECK="in_box python3 /opt/pi-check/update_check.py"
    GAME=/opt/pi-check/game.json
    site() { in_box sh -c "ls -d $P_VENV/lib/python3*/site-packages"; }
    unit_id() { in_box systemctl show -p InvocationID --value pyramid-companion.service; }
    sha() { in_box sha256sum "$1" | cut -c1-16; }
    box_git() { in_box git -c safe.directory='*' "$@"; }

    step "previous commit installed (${PREV:0:10})"
    [ "$BOOT" = vm ] || [ -n "$LEADER" ] || fail "no process of the booted root found under nspawn ($NSPAWN)"
    in_box sh -c "cd $TABLE && ./install.sh --port 80" > "$LOG/update-previous.log" 2>&1 \
        || fail "install.sh of ${PREV:0:10}" "$LOG/update-previous.log"
    healthz_within 120 || fail "no /healthz from ${PREV:0:10}" "$LOG/update-previous.log"
    $CHECK venv-is "$(site)" "$TABLE" > "$LOG/update-venv.txt" 2>&1 || fail "$(tail -1 "$LOG/update-venv.txt")"
    ok "$(cat "$LOG/update-venv.txt")"

    step "a game, a secret key, the table's board.toml"
    key=$P_STATE_DIR/secret_key board=$P_CONFIG_DIR/board.toml
    in_box test -f "$key" || fail "no $key: the service made none"
    # a key of our own (its owner and mode the service's), and the table's own board.toml
    in_box sh -c "umask 077 && head -c 48 /dev/urandom > $key.new && chown --reference=$key $key.new && chmod 600 $key.new && mv $key.new $key" \
        > "$LOG/update-key.log" 2>&1 || fail "a secret key of our own" "$LOG/update-key.log"
    in_box sh -c "sed -E 's/^brightness = 0\\.5 /brightness = 0.3 /' $TABLE/companion/board/data/reference-1-pi.toml > $board.new \
        && grep -q '^brightness = 0\\.3 ' $board.new && grep -q '^stride = 12' $board.new && chmod 644 $board.new && mv $board.new $board" \
        > "$LOG/update-board.log" 2>&1 || fail "the table's board.toml: no brightness line or no stride" "$LOG/update-board.log"
    in_box systemctl restart pyramid-companion.service > "$LOG/update-restart.log" 2>&1 \
        || fail "the previous version does not start with that key and board.toml" "$LOG/update-restart.log"
    healthz_within 120 || fail "no /healthz after the restart with that key and board.toml"
    $CHECK game http://127.0.0.1 "$GAME" > "$LOG/update-game.txt" 2>&1 || fail "$(tail -1 "$LOG/update-game.txt")"
    $CHECK same-game http://127.0.0.1 "$GAME" "$P_STATE_DIR/journal.sqlite3" >> "$LOG/update-game.txt" 2>&1 \
        || fail "$(tail -1 "$LOG/update-game.txt")"
    KEY_SHA=$(sha "$key") BOARD_SHA=$(sha "$board")
    [ ${#KEY_SHA} = 16 ] && [ ${#BOARD_SHA} = 16 ] || fail "no hash of the key or board.toml"
    ok "$(head -1 "$LOG/update-game.txt"); key $KEY_SHA, board.toml $BOARD_SHA"

    # After an update (its log $1, the unit's invocation before it $2): the clone at this
    # checkout, the service restarted and answering on this checkout's venv, and the
    # table's data as it was: game, host cookie, key, board.toml.
    running_this() {
        [ "$(box_git -C "$TABLE" rev-parse HEAD)" = "$NEW" ] || fail "the clone is not at this checkout" "$1"
        local now; now=$(unit_id)
        [ -n "$now" ] && [ "$now" != "$2" ] || fail "the service did not restart" "$1"
        in_box systemctl is-active --quiet pyramid-companion.service || fail "the service is not active" "$1"
        healthz_within 30 || fail "no /healthz" "$1"
        $CHECK venv-is "$(site)" "$TABLE" > "$LOG/update-venv.txt" 2>&1 || fail "$(tail -1 "$LOG/update-venv.txt")" "$1"
        in_box test ! -e "$P_VENV.previous" || fail "$P_VENV.previous left behind" "$1"
        $CHECK same-game http://127.0.0.1 "$GAME" "$P_STATE_DIR/journal.sqlite3" > "$LOG/update-kept.txt" 2>&1 \
            || fail "$(tail -1 "$LOG/update-kept.txt")" "$1"
        [ "$(sha "$key")" = "$KEY_SHA" ] || fail "the secret key changed" "$1"
        [ "$(sha "$board")" = "$BOARD_SHA" ] || fail "board.toml changed" "$1"
    }

    step "install.sh update to this checkout"
    before=$(unit_id)
    asked=$(grep -c "\"GET " "$LOG/piwheels.log" || true)
    in_box sh -c "cd $TABLE && ./install.sh update" > "$LOG/update.log" 2>&1 \
        || fail "install.sh update: $(grep -m1 'FAILED' "$LOG/update.log" || tail -1 "$LOG/update.log")" "$LOG/update.log"
    sed 's/^/    | /' "$LOG/update.log"
    grep -q "^updated to ${NEW:0:10}; /healthz answers" "$LOG/update.log" || fail "no 'updated to ${NEW:0:10}'" "$LOG/update.log"
    grep -qx 'board.toml: leds.layout.stride is no longer used by this version (remove it)' "$LOG/update.log" \
        || fail "the removed key leds.layout.stride was not named" "$LOG/update.log"
    grep -qx 'board.toml: new key leds.gamma (its default applies)' "$LOG/update.log" \
        || fail "the new key leds.gamma was not named" "$LOG/update.log"
    grep -q '^reboot once' "$LOG/update.log" || fail "no reboot advice while a reboot is pending" "$LOG/update.log"
    running_this "$LOG/update.log" "$before"
    gamma=$(in_box "$P_VENV/bin/python" -c "from companion.board.config import load_config; print(load_config('$board').leds.gamma)" 2>&1)
    [ "$gamma" = 2.6 ] || fail "leds.gamma is not its default 2.6 in the new version: $gamma"
    # The booted root reaches the piwheels stand-in at the address its pip.conf names
    # (from the machine: 10.0.2.2), not only names it; an update whose wheelhouse holds
    # every pin asks no index at all (offline), so the asks are counted, not required.
    asked=$(( $(grep -c "\"GET " "$LOG/piwheels.log" || true) - asked ))
    in_box python3 -c 'import configparser, urllib.request as u; c = configparser.ConfigParser(); c.read("/etc/pip.conf"); u.urlopen(c["global"]["extra-index-url"] + "/", timeout=30).read()' \
        > "$LOG/piwheels-reach.log" 2>&1 || fail "the booted root does not reach the piwheels stand-in its pip.conf names" "$LOG/piwheels-reach.log"
    ok "restarted; $(cat "$LOG/update-venv.txt"); game, cookie, key and board.toml kept; stride named, gamma $gamma; piwheels reached, asked $asked times by the update"

    step "a failing update puts it back"
    box_git -C "$UPSTREAM" update-ref refs/heads/main "$BAD"
    before=$(unit_id)
    in_box sh -c "cd $TABLE && ./install.sh update" > "$LOG/update-bad.log" 2>&1 \
        && fail "install.sh update to a commit whose venv cannot be installed said it worked" "$LOG/update-bad.log"
    sed 's/^/    | /' "$LOG/update-bad.log"
    grep -q "^\[ok\] *fetch: .*${NEW:0:10} -> ${BAD:0:10}" "$LOG/update-bad.log" || fail "no '[ok] fetch' line" "$LOG/update-bad.log"
    grep -q '^\[FAILED\]  python packages' "$LOG/update-bad.log" || fail "no '[FAILED]  python packages'" "$LOG/update-bad.log"
    grep -qx "the previous version ${NEW:0:10} is back" "$LOG/update-bad.log" \
        || fail "no 'the previous version ${NEW:0:10} is back' (with /healthz)" "$LOG/update-bad.log"
    running_this "$LOG/update-bad.log" "$before"
    ok "${NEW:0:10} back and answering; game, cookie, key and board.toml kept"

    step "an update that never answers is put back"
    box_git -C "$UPSTREAM" update-ref refs/heads/main "$SILENT"
    before=$(unit_id)
    in_box sh -c "cd $TABLE && ./install.sh update" > "$LOG/update-silent.log" 2>&1 \
        && fail "install.sh update to a version that never answers /healthz said it worked" "$LOG/update-silent.log"
    sed 's/^/    | /' "$LOG/update-silent.log"
    grep -q '^\[FAILED\]  healthz: ' "$LOG/update-silent.log" || fail "no '[FAILED]  healthz' line" "$LOG/update-silent.log"
    grep -qx "the previous version ${NEW:0:10} is back" "$LOG/update-silent.log" \
        || fail "no 'the previous version ${NEW:0:10} is back' (with /healthz)" "$LOG/update-silent.log"
    running_this "$LOG/update-silent.log" "$before"
    ok "${NEW:0:10} back and answering after ${SILENT:0:10} stayed silent; data kept"

    # An update cut off at any moment (an ssh hang-up, a shell killed): SIGKILL to the
    # updater's whole process group once it reaches the point ($2: a test that says so).
    # The table must still answer (running, or after a plain restart) with its data, and
    # `install.sh update` again must finish the job.  Each point updates to a commit of
    # its own (KILLS, above).
    # (|| true: under pipefail a search that finds nothing yet must not end the check)
    # (the processes as the root sees them: its pgrep, ps and kill)
    running() { in_box pgrep -f "$1" > /dev/null; }
    updater() { in_box pgrep -f 'companion\.pi\.install update' | head -1 || true; }
    kill_update_at() {
        local point=$1 reached=$2 log pid pgid how before
        log=$LOG/update-kill-${1// /-}.log
        NEW=${KILLS[$KILLED]}; KILLED=$((KILLED + 1))
        box_git -C "$UPSTREAM" update-ref refs/heads/main "$NEW"
        LINK=$(in_box readlink "$P_VENV" || true)
        in_box setsid sh -c "cd $TABLE && exec ./install.sh update" > "$log" 2>&1 &
        pid=""
        for _ in $(seq 1800); do
            pid=${pid:-$(updater)}
            [ -n "$pid" ] && eval "$reached" && break
            kill -0 $! 2>/dev/null || fail "the update ended before '$point' was reached" "$log"
            sleep 0.5
        done
        pgid=$(in_box ps -o pgid= -p "$pid" | tr -d ' ' || true)
        [ -n "$pgid" ] || fail "no updater to kill at '$point'" "$log"
        in_box kill -KILL -- "-$pgid" || fail "kill -KILL -- -$pgid at '$point'" "$log"
        wait $! 2>/dev/null || true
        echo "--- killed (SIGKILL to process group $pgid) at: $point" >> "$log"
        if in_box systemctl is-active --quiet pyramid-companion.service && healthz_within 60; then how="still answering"
        else
            in_box systemctl restart pyramid-companion.service >> "$log" 2>&1 || true
            healthz_within 120 || fail "killed at '$point': no /healthz, not even after a restart" "$log"
            how="answering after a restart"
        fi
        $CHECK same-game http://127.0.0.1 "$GAME" "$P_STATE_DIR/journal.sqlite3" >> "$log" 2>&1 \
            || fail "killed at '$point': $(tail -1 "$log")" "$log"
        before=$(unit_id)
        in_box sh -c "cd $TABLE && ./install.sh update" > "$log.again" 2>&1 \
            || fail "install.sh update again after '$point': $(grep -m1 'FAILED' "$log.again" || tail -1 "$log.again")" "$log.again"
        grep -q 'nothing to update' "$log.again" && fail "after '$point' the update said nothing to update" "$log.again"
        grep -q "^updated to ${NEW:0:10}; /healthz answers" "$log.again" || fail "no 'updated to ${NEW:0:10}' after '$point'" "$log.again"
        running_this "$log.again" "$before"
        printf '    | %-34s %s; again: %s\n' "$point" "$how" "$(grep -m1 -E 'finishing|updating|starting it again' "$log.again")"
    }
    step "updates killed at five points"
    KILLED=0
    kill_update_at "the fetch" "grep -q '^\[ok\] *fetch:' \"\$log\""
    kill_update_at "pip" "running 'pip (wheel|install)' && sleep 5"
    kill_update_at "the new venv's check" "running 'venv-[^ ]*/bin/python -c '"
    kill_update_at "the switch" "[ \"\$(in_box readlink \"\$P_VENV\")\" != \"\$LINK\" ]"
    # (systemctl restart waits for the unit's READY=1; right after it the update answers
    # /healthz, confirms and prunes: killed there it is done, and says so when run again)
    kill_update_at "the restart" "running 'systemctl restart pyramid-companion'"
    ok "each time the table answered with its game, cookie, key and board.toml; the update again finished"
fi

step "shut down"
if [ -n "$VM" ]; then
    # The machine's disk is this run's copy: qemu ends on SIGTERM, nothing to keep.
    kill "$VM"; wait "$VM" 2>/dev/null || true; VM=""
    ok "qemu-system-$QEMU ended"
    echo "pi-check: all steps passed in $(($(date +%s) - T0)) s"
    exit 0
fi
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
