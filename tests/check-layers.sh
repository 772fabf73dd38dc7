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

# One awk over every file (a shell loop spent half a minute of CI starting processes per #include).
git ls-files -co --exclude-standard core/src widgets app | grep -E '\.(h|cpp)$' |
    awk -v rules="$rules" '
        function dir(path) { return path ~ /\// ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "." }
        BEGIN {
            n = split(rules, lines, "\n")
            for (i = 1; i <= n; ++i) {
                k = split(lines[i], w, " ")
                if (k < 2) continue
                allow[w[1] SUBSEP w[2]] = ""
                for (j = 3; j <= k; ++j) allow[w[1] SUBSEP w[2]] = allow[w[1] SUBSEP w[2]] " " w[j]
            }
            bad = 0
        }
        {
            file = $0
            root = file ~ /^core\/src\// ? "core/src" : (file ~ /^widgets\// ? "widgets" : "app")
            rel = substr(file, length(root) + 2)
            folder = dir(rel)
            if (!((root SUBSEP folder) in allow)) {
                printf "%s: folder \047%s\047 has no line in tests/check-layers.sh (add it, with what it may include)\n", file, folder
                bad = 1
                next
            }
            list = allow[root SUBSEP folder]
            while ((getline line < file) > 0) {
                if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
                inc = line
                sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc)
                if (index(inc, "\"") == 0) continue
                inc = substr(inc, 1, index(inc, "\"") - 1)
                if (inc ~ /\.moc$/) continue
                target = dir(inc)
                if (target == "scorch" || target == folder) continue
                if (index(list " ", " " target " ") == 0) {
                    shown = list == "" ? "nothing but itself" : substr(list, 2)
                    printf "%s: includes \"%s\": \047%s\047 may include only: %s (and scorch/)\n", file, inc, folder, shown
                    bad = 1
                }
            }
            close(file)
        }
        END {
            if (!bad) print "layering: every #include in core/src, widgets and app keeps to its folder\047s layer"
            exit bad
        }'
