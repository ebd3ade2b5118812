#!/bin/sh
# citations.sh -- every citation of a paper's algorithm line in the sources is listed, checked,
# in docs/citations.md (issue 13: the algorithms read like the papers, and the doc cannot fall
# behind the code).
#   sh tests/citations.sh           compare (exit 1 on any difference, one line per problem)
#   sh tests/citations.sh --list    print the citations found: file, function, citation, line (TSV)
#
# What counts as a citation: "line 8", "lines 10-12", "Line 13", "lines 6-9 and 24" in a C
# comment of cpu_ref/*.c, cpu_ref/*.h, or anywhere in docs/io-model.md, docs/io-model-backward.md.
# Which algorithm a line belongs to is read off the text before it, as a reader would:
#   - a paper: "FlashAttention" / "Dao et al. 2022" / "2205.14135" / "FA1"  -> FA1,
#              "FlashAttention-2" / "Dao 2023" / "2307.08691" / "FA2"       -> FA2
#     (a new paper forgets the algorithm named before it);
#   - an algorithm: "Alg. 4", "Algorithm 4", with "Algorithm 1 of <paper>" naming its paper;
#   - the context starts afresh with every C comment (at the algorithm the file's header comment
#     names first) and with every markdown heading (at nothing).
# Each is normalised to "FA2 Alg. 1 line 8" / "FA1 Alg. 4 lines 10-22" and keyed by file and
# function (C: the function the comment is in, or the next one declared or defined after it;
# the file's first comment: "(file header)"; markdown: the section, "§N").  The test fails when
# a citation in the sources is not a row of docs/citations.md, when a row names no citation in
# the sources (a stale row), when the algorithm cannot be told, or when the line is past the end
# of the algorithm as docs/citations.md transcribes it.
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DOC="$ROOT/docs/citations.md"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cd "$ROOT" || exit 2
awk '
function reset_ctx() { paper = dpaper; alg = dalg }
# the paper a marker names: FA1, FA2, or FA? for one whose lines are not transcribed (FA3 ...)
function paper_of(m) {
    if (m ~ /^FlashAttention-2/ || m ~ /^Dao 2023/ || m == "2307.08691" || m == "FA2") return "FA2"
    if (m ~ /^FlashAttention-/ || m ~ /^FA[3-9]/) return "FA?"
    return "FA1"
}
function set_paper(p) { if (p != paper) { paper = p; alg = "" } }
function emit(spec, pos,    n, k, ln) {
    n = split(spec, k, "-")
    ln = piece_line(pos)
    ncit++
    cit_file[ncit] = FILENAME; cit_line[ncit] = ln
    cit_text[ncit] = (paper == "" ? "?" : paper) " Alg. " (alg == "" ? "?" : alg) \
                     (n > 1 ? " lines " k[1] "-" k[2] : " line " k[1])
    pend[++npend] = ncit
}
function piece_line(pos,    i) {
    for (i = npiece; i > 1; i--) if (pos >= poff[i]) return pline[i]
    return pline[1]
}
# scans the text of one block (a C comment or a markdown section) left to right
function scan(s,    base, r1, r2, r3, best, m, rest, p, a, spec) {
    base = 0
    while (length(s) > 0) {
        r1 = match(s, /FlashAttention(-[0-9])?|Dao et al\.? 2022|Dao 2023|2205\.14135|2307\.08691|FA[1-9]/)
        l1 = RLENGTH
        r2 = match(s, /Alg(orithm|\.) *[0-9]+/); l2 = RLENGTH
        r3 = match(s, /[Ll]ines? +[0-9]+( *- *[0-9]+)?/); l3 = RLENGTH
        best = 0
        if (r1 && (!best || r1 < best)) { best = r1; kind = 1 }
        if (r2 && (!best || r2 < best)) { best = r2; kind = 2 }
        if (r3 && (!best || r3 < best)) { best = r3; kind = 3 }
        if (!best) return
        prev = best > 1 ? substr(s, best - 1, 1) : " "
        if (kind == 1) {
            m = substr(s, best, l1)
            nxt = substr(s, best + l1, 1)
            if (!(m ~ /^FA/ && (prev ~ /[A-Za-z0-9_]/ || nxt ~ /[A-Za-z0-9_]/))) set_paper(paper_of(m))
            adv = best + l1 - 1
        } else if (kind == 2) {
            m = substr(s, best, l2)
            a = m; sub(/^Alg(orithm|\.) */, "", a)
            rest = substr(s, best + l2)
            if (match(rest, /^,? of (the )?(FlashAttention(-[0-9])?|Dao et al\.? 2022|Dao 2023)/)) {
                p = substr(rest, RSTART, RLENGTH); sub(/^,? of (the )?/, "", p)
                set_paper(paper_of(p))
            }
            alg = a
            if (is_header && dalg == "" && paper != "") { dpaper = paper; dalg = alg }
            adv = best + l2 - 1
        } else {
            adv = best + l3 - 1
            if (prev !~ /[A-Za-z_]/) { # not a word ending in "line" (pipeline, baseline)
                spec = substr(s, best, l3)
                sub(/^[Ll]ines? +/, "", spec); gsub(/ /, "", spec)
                emit(spec, base + best)
                # continuations: "lines 6-9 and 24", "lines 5, 7"
                rest = substr(s, adv + 1)
                while (match(rest, /^ *(,|and|, and) +[0-9]+( *- *[0-9]+)?/)) {
                    spec = substr(rest, RSTART, RLENGTH)
                    sub(/^ *(,|and|, and) +/, "", spec); gsub(/ /, "", spec)
                    emit(spec, base + adv + 1)
                    adv += RLENGTH
                    rest = substr(rest, RLENGTH + 1)
                }
            }
        }
        base += adv
        s = substr(s, adv + 1)
    }
}
function add_piece(t) {
    gsub(/\342\200\223/, "-", t)   # an en dash in a range is a hyphen
    npiece++; poff[npiece] = length(btext) + 1; pline[npiece] = FNR
    btext = btext t " "
}
function start_block() { btext = ""; npiece = 0; reset_ctx() }
function end_block() { scan(btext); btext = ""; npiece = 0 }
# citations met outside a function wait for the next declaration or definition
function flush(name,    i) {
    for (i = 1; i <= npend; i++) cit_func[pend[i]] = name
    npend = 0
}
FNR == 1 {
    if (NR > 1) { if (md) end_block(); flush(md ? section : "(file end)") }
    md = FILENAME ~ /\.md$/; dpaper = ""; dalg = ""; in_c = 0; in_body = 0; body = ""; sig = ""
    section = "(top)"; is_header = 0; start_block()
}
md {
    if ($0 ~ /^#+ /) {
        end_block(); flush(section)
        if (match($0, /^#+ [0-9]+\./)) { section = substr($0, RSTART, RLENGTH); sub(/^#+ /, "", section); sub(/\.$/, "", section); section = "§" section }
        else if ($0 ~ /^# /) section = "(top)"
        start_block()
    }
    add_piece($0)
    next
}
{
    line = $0
    # function tracking on code (column 0): "type name(" starts a declaration or a definition
    if (!in_c && !in_body && line ~ /^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*][A-Za-z_][A-Za-z0-9_]*\(/ && line !~ /^(typedef|return|else|if|for|while)[ (]/) {
        sig = line; sub(/\(.*/, "", sig); sub(/.*[ \t*]/, "", sig)
        flush(sig)
        if (line ~ /\{.*\}/ || line ~ /;[ \t]*$/) sig = ""
    }
    if (!in_c && sig != "" && line ~ /^\{/) { in_body = 1; body = sig; sig = "" }
    if (!in_c && sig != "" && line ~ /\);[ \t]*$/) sig = ""
    # the comments of the line
    while (length(line) > 0) {
        if (in_c) {
            e = index(line, "*/")
            if (!e) { t = line; sub(/^[ \t]*\*[ \t]?/, "", t); add_piece(t); line = ""; break }
            t = substr(line, 1, e - 1); sub(/^[ \t]*\*[ \t]?/, "", t); add_piece(t)
            end_block(); in_c = 0
            if (in_body) flush(body)
            else if (is_header) flush("(file header)")
            is_header = 0
            line = substr(line, e + 2)
        } else {
            b = index(line, "/*")
            if (!b) break
            q = substr(line, 1, b - 1); nq = gsub(/"/, "\"", q)
            if (nq % 2) break   # inside a string literal
            in_c = 1; is_header = (FNR == 1 && b == 1)
            start_block()
            line = substr(line, b + 2)
        }
    }
    if (in_body && $0 ~ /^\}/) { in_body = 0; body = "" }
}
END {
    if (md) end_block()
    flush(md ? section : "(file end)")
    for (i = 1; i <= ncit; i++) {
        f = cit_func[i]
        printf "%s\t%s\t%s\t%s\n", cit_file[i], f, cit_text[i], cit_line[i]
    }
}
' cpu_ref/*.c cpu_ref/*.h docs/io-model.md docs/io-model-backward.md >"$T/found" || exit 2

if [ "${1:-}" = "--list" ]; then
    sort -t "$(printf '\t')" -k1,1 -k4,4n "$T/found"
    exit 0
fi

[ -f "$DOC" ] || { echo "FAIL citations: $DOC is missing"; exit 1; }
# rows of the citation table: | `file` | `function` | FA2 Alg. 1 line 8 | ... |
awk -F'|' '/^\| *`?(cpu_ref|docs)\// {
    for (i = 2; i <= 4; i++) { x = $i; gsub(/`/, "", x); gsub(/^ +| +$/, "", x); f[i] = x }
    if (f[4] ~ /^FA[0-9]+ Alg\. [0-9]+ lines? [0-9]/) print f[2] "\t" f[3] "\t" f[4]
}' "$DOC" | sort -u >"$T/listed"
# the algorithms as transcribed: "### FA2 Alg. 1: ..." then rows "| 8 | ... |"
awk '/^### FA[12] Alg\. [0-9]+/ { split($0, w, " "); sub(/[^0-9].*/, "", w[4]); cur = w[2] " Alg. " w[4]; next }
     /^#/ { cur = "" }
     cur != "" && /^\| *[0-9]+ *\|/ { n = $0; sub(/^\| */, "", n); sub(/ *\|.*/, "", n); if (n + 0 > max[cur]) max[cur] = n + 0 }
     END { for (k in max) print k "\t" max[k] }' "$DOC" >"$T/algs"

fails=0
# 1. every citation of the sources is a row of the table, and its line exists
while IFS="$(printf '\t')" read -r file func cit ln; do
    case "$cit" in
    *'?'*) echo "FAIL citations: $file:$ln ($func): '$cit': which paper and algorithm? (name them in the comment)"
           fails=$((fails + 1)); continue ;;
    esac
    alg=${cit% line*}
    nums=${cit##* }
    last=${nums#*-}
    max=$(awk -F'\t' -v a="$alg" '$1 == a { print $2 }' "$T/algs")
    if [ -z "$max" ]; then
        echo "FAIL citations: $file:$ln ($func): '$cit': $alg is not transcribed in docs/citations.md"
        fails=$((fails + 1))
    elif [ "$last" -gt "$max" ] || [ "${nums%-*}" -lt 1 ]; then
        echo "FAIL citations: $file:$ln ($func): '$cit': $alg has lines 1-$max"
        fails=$((fails + 1))
    fi
    if ! grep -qxF "$(printf '%s\t%s\t%s' "$file" "$func" "$cit")" "$T/listed"; then
        echo "FAIL citations: $file:$ln ($func): '$cit' is not listed in docs/citations.md"
        fails=$((fails + 1))
    fi
done <"$T/found"
# 2. every row of the table is still a citation of the sources
cut -f1-3 "$T/found" | sort -u >"$T/keys"
comm -13 "$T/keys" "$T/listed" | while IFS="$(printf '\t')" read -r file func cit; do
    echo "FAIL citations: docs/citations.md lists '$cit' in $file ($func), which no longer cites it"
done >"$T/stale"
if [ -s "$T/stale" ]; then cat "$T/stale"; fails=$((fails + $(wc -l <"$T/stale"))); fi

n=$(wc -l <"$T/keys")
if [ "$fails" -gt 0 ]; then
    echo "citations: $fails problem(s) ($n citations in the sources)"
    exit 1
fi
echo "PASS citations: $n citations of paper lines, each listed and checked in docs/citations.md"
