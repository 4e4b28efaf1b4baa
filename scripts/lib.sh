# Shared by the project's scripts: what they need from the machine, and which JDKs it has.

# require TOOL...: each tool must be on PATH; as root, missing ones are installed from Debian's
# packages, otherwise the script stops and names them.
require() {
    local missing=() tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        local packages=()
        for tool in "${missing[@]}"; do
            case "$tool" in
                java|javac) packages+=(openjdk-17-jdk-headless) ;;
                mvn) packages+=(maven) ;;
                cc|gcc) packages+=(gcc libc6-dev) ;;
                taskset) packages+=(util-linux) ;;
                aarch64-linux-gnu-gcc) packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
                qemu-aarch64) packages+=(qemu-user) ;;
                *) packages+=("$tool") ;;
            esac
        done
        echo "installing: ${packages[*]}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
    else
        echo "missing: ${missing[*]} (install them, or run this as root on Debian to have them installed)" >&2
        exit 1
    fi
}

# java_feature JAVA_BIN: the JDK's feature release (17, 25, ...).
java_feature() {
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p'
}

# test_jdks: the homes of the JDKs the suite runs on, one a line: the oldest supported (17) and
# the newest installed, found in JAVA_HOME, on PATH and under /usr/lib/jvm. NATIVESELECTOR_JDKS
# (homes separated by spaces) overrides the search.
test_jdks() {
    if [ -n "${NATIVESELECTOR_JDKS:-}" ]; then
        printf '%s\n' $NATIVESELECTOR_JDKS
        return
    fi
    local candidates=() home feature
    [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
    command -v javac >/dev/null 2>&1 && candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
    for home in /usr/lib/jvm/*/; do candidates+=("${home%/}"); done
    for home in "${candidates[@]}"; do
        [ -x "$home/bin/javac" ] || continue
        feature=$(java_feature "$home/bin/java")
        [ -n "$feature" ] && [ "$feature" -ge 17 ] && echo "$feature $(readlink -f "$home")"
    done | sort -n -u -k1,1 | awk 'NR == 1 { first = $2 } { last = $2 } END { print first; if (last != first) print last }'
}
