# cli_test_report_csv.sh -- every column of every CSV `fasim report` writes is defined in
# docs/report-csv.md, in that file's own section (issue 18: a fresh reader found report.csv's,
# decode.csv's and long_context.csv's columns undefined).  Sourced by tests/cli_test.sh.

RC_DOC="$(dirname "$0")/../docs/report-csv.md"
if "$FASIM" report --no-plots --quiet --out-dir "$T/rc_rep" 2>"$T/err"; then
    rc_bad=""; rc_files=0
    for f in "$T/rc_rep"/*.csv; do
        b=$(basename "$f")
        case "$b" in hbm_vs_n_*) sec='hbm_vs_n_\<model\>.csv' ;; *) sec=$b ;; esac
        # the section: from its "## " heading to the next
        awk -v h="## $sec" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$RC_DOC" > "$T/rc_sec"
        [ -s "$T/rc_sec" ] || { rc_bad="$rc_bad $b(no section '## $sec')"; continue; }
        rc_files=$((rc_files + 1))
        for col in $(head -1 "$f" | tr ',' ' '); do
            case "$col" in capacity_*) col='capacity_<hw>' ;; esac
            grep -qF -- "\`$col\`" "$T/rc_sec" || rc_bad="$rc_bad $b:$col"
        done
    done
    [ -z "$rc_bad" ] && [ "$rc_files" -ge 9 ] && pass "report CSVs: every column of the $rc_files files defined in docs/report-csv.md" \
        || fail "report CSVs: columns not in docs/report-csv.md ($rc_files files):$rc_bad"
    # the columns report.csv leaves empty are said to be empty, and why, where they are defined
    rc_empty=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; n = NF; next }
        { for (i = 1; i <= n; i++) if ($i != "") full[i] = 1 }
        END { for (i = 1; i <= n; i++) if (!full[i]) printf "%s ", name[i] }' "$T/rc_rep/report.csv")
    rc_miss=""
    for col in $rc_empty; do
        grep -F -- "\`$col\`" "$RC_DOC" | grep -q "empty in every report row" || rc_miss="$rc_miss $col"
    done
    [ -n "$rc_empty" ] && [ -z "$rc_miss" ] && pass "report CSVs: report.csv's empty columns ($rc_empty) explained" \
        || fail "report CSVs: empty columns not explained:$rc_miss (empty: $rc_empty)"
else
    fail "report CSVs: fasim report --no-plots: $(cat "$T/err")"
fi
"$FASIM" report --no-plots --out-dir "$T/rc_rep2" 2>&1 | grep -q "^files written (every CSV column defined in docs/report-csv.md" \
    && pass "report CSVs: the report's file list points at docs/report-csv.md" || fail "report CSVs: no pointer to docs/report-csv.md"
grep -q "docs/report-csv.md" "$(dirname "$0")/../README.md" && pass "report CSVs: README links docs/report-csv.md" \
    || fail "report CSVs: README does not link docs/report-csv.md"
# report.csv's softmax FLOPs (flops_other) are those `fasim io` counts on the same shape, so flops
# = flops_matmul + flops_other holds as documented (issue 18: the count-free path left them 0):
# MHA, GQA and MQA models, every algorithm
rc_flbad=""; rc_fln=0
for m in gpt2-medium llama-3-8b falcon-7b; do
    "$FASIM" io --model "$(dirname "$0")/../analysis/models/$m.json" --causal --hw a100 --format csv > "$T/rc_io.csv" 2>&1 || { rc_flbad="$rc_flbad $m(io failed)"; continue; }
    for a in standard flash1 flash2; do
        want=$(awk -F, -v a=$a 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == a { print $c["flops_other"] "," $c["flops"] }' "$T/rc_io.csv")
        got=$(awk -F, -v a=$a -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $1 == m && $c["algo"] == a && $c["hw"] == "a100" { print $c["flops_other"] "," $c["flops"] }' "$T/rc_rep/report.csv")
        [ -n "$got" ] || continue
        rc_fln=$((rc_fln + 1))
        case "$got" in 0,*) rc_flbad="$rc_flbad $m/$a(0)" ;; esac
        [ "$got" = "$want" ] || rc_flbad="$rc_flbad $m/$a(report $got, io $want)"
    done
done
[ -z "$rc_flbad" ] && [ "$rc_fln" -ge 8 ] && pass "report CSVs: report.csv's flops_other and flops = fasim io's ($rc_fln rows)" \
    || fail "report CSVs: report.csv's FLOPs differ from fasim io's:$rc_flbad ($rc_fln rows)"
# h18d: cp.csv's formula_equal (empty in the report, filled by fasim io --cp) and causal (1/0)
# documented; hbm_vs_block.csv's block values as they are (multiples of 16, not doubling)
rc_fe=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["formula_equal"] != "" { x++ } $c["causal"] != 1 && $c["causal"] != 0 { y++ } END { print x + 0, y + 0 }' "$T/rc_rep/cp.csv")
rc_fi=$("$FASIM" io --cp 2 --heads 8 --kv-heads 2 --seqlen 2048 --headdim 64 --dtype bf16 --causal --hw h200 --format csv 2>&1 \
    | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["formula_equal"] }' | sort -u | tr '\n' ' ')
rc_blk=$(awk -F, 'NR > 1 { printf "%s ", $1 }' "$T/rc_rep/hbm_vs_block.csv")
grep -F -- '`formula_equal`' "$RC_DOC" | grep -q "empty in \`fasim report\`'s cp.csv, which runs no count" \
    && grep -F -- '`formula_equal`' "$RC_DOC" | grep -q '`fasim io --cp P --format csv` runs the count and fills it' \
    && [ "$rc_fe" = "0 0" ] && [ "$rc_fi" = "yes " ] \
    && grep -F -- '`causal`' "$RC_DOC" | grep -q "\`causal\` 1 (causal) or 0, not report.csv's anchor names" \
    && [ "$rc_blk" = "16 32 48 64 80 96 112 128 " ] && grep -q "the multiples of 16 from 16 to 128" "$RC_DOC" \
    && pass "report CSVs: cp.csv's formula_equal and causal, hbm_vs_block's block values documented as written" \
    || fail "report CSVs: formula_equal/causal/block docs (cp.csv $rc_fe, io --cp '$rc_fi', blocks '$rc_blk')"
