#!/bin/sh
# Time and bytes of a fresh machine's set-up, as the README reports them: run from a clean clone
# (`git clone ... && cd glueball && sh tools/setup_figures.sh`). pip and Maven get empty caches of their own
# (nothing comes from this machine's earlier downloads); bytes are what the network interface received.
# `make demo` runs without Maven on the PATH. apt packages are reported by their download size (apt-cache),
# since a machine either has them or not: installing them again here would measure nothing.
set -eu
IFACE=${IFACE:-$(awk -F: 'NR > 2 && $1 !~ /lo|ifb/ {gsub(/ /, "", $1); print $1; exit}' /proc/net/dev)}
SCRATCH=$(mktemp -d /tmp/glueball-setup-XXXXXX)
export PIP_CACHE_DIR="$SCRATCH/pip" GLUEBALL_JARS_CACHE="$SCRATCH/jars"
export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$SCRATCH/m2"

received() { awk -F'[: ]+' -v i="$IFACE" '{sub(/^ +/, "")} $1 == i {print $2}' /proc/net/dev; }

step() {  # step NAME COMMAND...: runs it, prints seconds and MB received
    name=$1; shift
    before=$(received); start=$(date +%s.%N)
    "$@" > "$SCRATCH/$name.log" 2>&1 || { echo "$name failed: see $SCRATCH/$name.log"; exit 1; }
    end=$(date +%s.%N); after=$(received)
    awk -v n="$name" -v s="$start" -v e="$end" -v b="$before" -v a="$after" \
        'BEGIN {printf "%-28s %7.0f s %9.1f MB\n", n, e - s, (a - b) / 1e6}'
}

# a PATH without mvn for the demo: it must not need Maven
NOMVN="$SCRATCH/bin"; mkdir -p "$NOMVN"
for dir in $(echo "$PATH" | tr ':' ' '); do
    [ -d "$dir" ] || continue
    for tool in "$dir"/*; do
        base=$(basename "$tool")
        [ "$base" = mvn ] || [ -e "$NOMVN/$base" ] || ln -s "$tool" "$NOMVN/$base" 2>/dev/null || true
    done
done

echo "set-up of $(pwd) (interface $IFACE, caches in $SCRATCH)"
step "make demo (pip, no mvn)" env PATH="$NOMVN" DEMO_SERVE=0 make demo
step "test extras (pip)" make .venv/.installed-test
step "make jars (mvn)" make jars
echo "apt packages (download size, apt-cache):"
for package in postgresql-15 mariadb-server libpostgresql-jdbc-java libmariadb-java chromium chromium-driver awscli; do
    apt-cache show --no-all-versions "$package" 2>/dev/null | awk -v p="$package" \
        '/^Size:/ {printf "  %-26s %7.1f MB\n", p, $2 / 1e6}'
done
du -sh "$SCRATCH/pip" "$SCRATCH/m2" "$SCRATCH/jars" .venv 2>/dev/null
