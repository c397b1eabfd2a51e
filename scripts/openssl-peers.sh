#!/usr/bin/env bash
# Prints, for each cipher name, the key and IV sizes `openssl enc` uses for it (the GOST names through
# `-engine gost`), or why it is not offered. Names come from the arguments, or else from `shifr list`
# (the `shifr` binary on PATH, or $SHIFR). `openssl enc -P` zero-pads or truncates the -K/-iv it is
# given to the cipher's sizes and prints the result, which is how the sizes are read here.
set -euo pipefail

if [ "$#" -gt 0 ]; then
    names=("$@")
else
    mapfile -t names < <("${SHIFR:-shifr}" list | awk '/^NAME/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
fi

zeros() { printf '%0*d' "$1" 0; }

printf '%-28s %5s %5s  %s\n' NAME KEY IV NOTE
for name in "${names[@]}"; do
    engine=()
    case "$name" in
        magma* | kuznyechik* | gost*) engine=(-engine gost) ;;
    esac
    if out=$(openssl enc "${engine[@]}" "-$name" -K "$(zeros 128)" -iv "$(zeros 64)" -P 2>/dev/null </dev/null); then
        key=$(sed -n 's/^key=//p' <<<"$out")
        iv=$(sed -n 's/^iv *=//p' <<<"$out")
        printf '%-28s %5d %5d\n' "$name" $((${#key} / 2)) $((${#iv} / 2))
    else
        printf '%-28s %5s %5s  %s\n' "$name" - - "not offered by openssl enc"
    fi
done
