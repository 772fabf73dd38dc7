#!/usr/bin/env bash
# Checks the layering of the source tree over its #include lines: a file may include its own folder, the
# folders its folder's line below allows, and the public headers (scorch/..., from any folder). Run by CTest
# (check_layers); prints every include against the layering and exits 1 if there is one.
# The same map, one line per folder, is the README's Layout section.
set -euo pipefail
cd "$(dirname "$0")/.."

# root  folder  may include (besides itself and scorch/)
rules="
core/src util
core/src model        util
core/src symbols      util model
core/src io           util model
core/src analysis     util model
core/src samples      util model
core/src export       util model analysis
core/src import/text  util model io
core/src import/json  util model io
core/src import/pprof util model io
core/src perf         util model io symbols
core/src raw          util model io symbols
core/src sampler      util model symbols raw
core/src disasm       util model symbols
core/src import       util model io symbols import/text import/json import/pprof perf raw
widgets  common
widgets  flame        common
widgets  tables       common
widgets  source       common
widgets  compare      common flame tables sandwich
widgets  record       common flame
widgets  timeline     common
widgets  sandwich     common flame
widgets  disasm       common
app      cli
app      .            cli common flame tables source compare record timeline sandwich disasm
"

allowed() { # root folder -> the allowed list, or "?" when the folder has no rule
    awk -v r="$1" -v f="$2" '$1 == r && $2 == f { $1 = ""; $2 = ""; print; found = 1 } END { if (!found) print "?" }' \
        <<<"$rules"
}

bad=0
for root in core/src widgets app; do
    while IFS= read -r file; do
        rel=${file#"$root"/}
        folder=$(dirname "$rel")
        allow=$(allowed "$root" "$folder")
        if [ "$allow" = "?" ]; then
            echo "$file: folder '$folder' has no line in tests/check-layers.sh (add it, with what it may include)"
            bad=1
            continue
        fi
        while IFS= read -r inc; do
            target=$(dirname "$inc")
            [ "$target" = scorch ] && continue
            [ "$target" = "$folder" ] && continue
            ok=0
            for a in $allow; do [ "$a" = "$target" ] && ok=1; done
            if [ $ok = 0 ]; then
                echo "$file: includes \"$inc\": '$folder' may include only: ${allow:-nothing but itself} (and scorch/)"
                bad=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file" | grep -v '\.moc$' || true)
    done < <(git ls-files -co --exclude-standard "$root" | grep -E '\.(h|cpp)$')
done
if [ $bad = 0 ]; then
    echo "layering: every #include in core/src, widgets and app keeps to its folder's layer"
fi
exit $bad
