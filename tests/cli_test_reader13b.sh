# cli_test_reader13b.sh -- sourced by tests/cli_test.sh (tests/cli_lib.sh: pass, fail; $T, $FASIM).
# The thirteenth fresh readings' docs, exercises and plots: the README's second io example as the
# tool prints it, no project-history words in the README and the docs a reader is sent to, the
# teacher's guide (its mistakes list, the DRAM figures compare prints), the L2 sizes in MiB, the
# trace CSV's columns, the report's files, hbm_vs_sram's Θ line inside Theorem 2's range, the
# hardware keys of conventions.md, and the exercise judges.
R13_ROOT=$(dirname "$0")/..
R13_H200=$R13_ROOT/analysis/measured/h200

# ---- reader13 #7: the README's second fasim io example is what the command prints ----
"$FASIM" io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200 \
    | grep -A2 '^TFLOP/s:' > "$T/r13_ex2_out"
awk '/^\$ \.\/build\/fasim io --algo flash2 --seqlen 4096 --batch 4 --heads 16 --headdim 128 --dtype bf16 --hw h200$/ {on = 1; next}
     on && /^```/ {exit} on && $0 != "..." {print}' "$R13_ROOT/README.md" > "$T/r13_ex2_readme"
[ -s "$T/r13_ex2_out" ] && cmp -s "$T/r13_ex2_out" "$T/r13_ex2_readme" \
    && pass "reader13: README's second io example (time-model table) matches the output byte for byte" \
    || fail "reader13: README's second io example differs from the output (regenerate it): $(diff "$T/r13_ex2_readme" "$T/r13_ex2_out" | head -c 600)"

# ---- reader13 #6 / reader13b #15: no session numbers or issue numbers where a reader is sent ----
r13_hist=$(grep -EniH "(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)('s)? session|sessions'|issue (1[0-9]|[0-9])\b|Every \`--dtype\` row now|\(before, standard" \
    "$R13_ROOT/README.md" "$R13_ROOT/docs/numerics.md" "$R13_ROOT/docs/io-model.md" "$R13_ROOT/docs/context-parallel.md" \
    "$R13_ROOT/docs/teacher.md" "$R13_ROOT/docs/conventions.md" "$R13_ROOT/docs/report-csv.md" "$R13_ROOT/docs/l2-model.md" \
    "$R13_ROOT"/docs/exercises/README.md "$R13_ROOT"/docs/exercises/*/README.md)
"$FASIM" explain --profile v5_bwd_cfg0 --pass bwd --dtype bf16 --batch 1 --heads 16 --seqlen 4096 --headdim 64 > "$T/r13_cfg0" 2>&1
"$FASIM" explain --profile v5_bwd_lean --pass bwd --dtype bf16 --batch 1 --heads 16 --seqlen 4096 --headdim 64 > "$T/r13_lean" 2>&1
[ -z "$r13_hist" ] && ! grep -qi "session\|issue 17" "$T/r13_cfg0" "$T/r13_lean" \
    && grep -q "v5_bwd_cfg0: v5_bwd without its instruction cuts (CFG 0" "$T/r13_cfg0" \
    && grep -q "v5_bwd_lean: v5_bwd with descriptors advanced and no division per step only" "$T/r13_lean" \
    && grep -q "v5_bwd_lean (v5_bwd with its operand descriptors advanced and no integer division per step" "$R13_ROOT/README.md" \
    && pass "reader13: README, the docs a reader is sent to and the profiles' names describe variants, not sessions or issue numbers" \
    || fail "reader13: history words: $r13_hist $(grep -i "session\|issue 17" "$T/r13_cfg0" "$T/r13_lean" | head -3)"

# ---- reader13 #8 / reader13b #12: teacher.md's Common mistakes: one bullet an exercise, 01-09 in turn, each a sentence ----
r13_bul=$(awk '/^## Common mistakes/ {on = 1; next} on && /^## / {exit}
    on && /^- \*\*[0-9][0-9]:\*\*/ {if (t != "") print t; t = $0; next}
    on && /^  / {t = t " " $0; next} END {if (t != "") print t}' "$R13_ROOT/docs/teacher.md")
r13_nums=$(echo "$r13_bul" | sed -n 's/^- \*\*\([0-9][0-9]\):\*\*.*/\1/p' | tr '\n' ' ')
r13_unended=$(echo "$r13_bul" | grep -v '\.$' | cut -c1-60)
r13_stray=$(awk '/^## Common mistakes/ {on = 1; next} on && /^## / {exit} on && NF && !/^- \*\*[0-9][0-9]:\*\*/ && !/^  / {print}' "$R13_ROOT/docs/teacher.md")
[ "$r13_nums" = "01 02 03 04 05 06 07 08 09 " ] && [ -z "$r13_unended" ] && [ -z "$r13_stray" ] \
    && pass "reader13: teacher.md's Common mistakes: bullets 01-09 in order, each ends its sentence" \
    || fail "reader13: teacher.md's Common mistakes: numbers '$r13_nums', unended: $r13_unended, stray: $r13_stray"

# ---- reader13 #9 / reader13b #11: teacher.md's v1 DRAM figures are what compare prints; v0_low / v3 from the sweep ----
"$FASIM" compare --measured "$R13_H200/compare_input.csv" --hw h200 > "$T/r13_cmp" 2>&1
r13_v1_64=$(awk '$1 == "v1" && $5 == 64 {for (i = 1; i <= NF; i++) if ($i == "|") k++; print; exit}' "$T/r13_cmp")
r13_v1_128=$(awk '$1 == "v1" && $5 == 128 {print; exit}' "$T/r13_cmp")
r13_v2_64=$(awk '$1 == "v2" && $5 == 64 {print; exit}' "$T/r13_cmp")
r13_tm="$R13_ROOT/docs/teacher.md"
r13_ok=1
for r13_f in "$(echo "$r13_v1_64" | awk -F'|' '{split($3, a, " "); print a[1] " MB predicted"}')" \
             "$(echo "$r13_v1_64" | awk -F'|' '{split($3, a, " "); print a[2] " MB"}')" \
             "$(echo "$r13_v1_128" | awk -F'|' '{split($3, a, " "); print a[1] " MB predicted"}')" \
             "$(echo "$r13_v1_128" | awk -F'|' '{split($3, a, " "); print a[2] " MB measured"}')" \
             "$(echo "$r13_v2_64" | awk -F'|' '{split($3, a, " "); print "v2'"'"'s " a[2] " MB"}')"; do
    tr '\n' ' ' < "$r13_tm" | sed 's/  */ /g' | grep -qF "$r13_f" || { r13_ok=0; echo "  teacher.md lacks '$r13_f'"; }
done
r13_v0=$(awk -F, 'NR > 1 && ($1 == "v0_low" || $1 == "v3") {k = $2 "," $3 "," $5 "," $6 "," $7 "," $8; t[$1, k] = $10}
    END {lo = 1e9; hi = 0; for (x in t) {split(x, p, SUBSEP); if (p[1] == "v0_low" && (("v3", p[2]) in t)) {
         r = t[x] / t["v3", p[2]]; if (r < lo) lo = r; if (r > hi) hi = r}}; printf "%.1f–%.1f×", lo, hi}' "$R13_H200/fabench_sweep.csv")
[ "$r13_ok" = 1 ] && grep -qF "v0_low is $r13_v0 slower" "$r13_tm" \
    && pass "reader13: teacher.md quotes compare's v1/v2 DRAM bytes (read + write) and v0_low / v3 = $r13_v0 of fabench_sweep.csv" \
    || fail "reader13: teacher.md's measured figures (v0_low / v3 is $r13_v0 in fabench_sweep.csv)"

# ---- reader13 #15: the README's list of report files names every file the report writes ----
"$FASIM" report --out-dir "$T/r13rep" --no-plots > "$T/r13_rep_out" 2>&1
r13_missing=""
for r13_f in $(sed -n 's,^  .*/r13rep/\([^/]*\)$,\1,p' "$T/r13_rep_out" | sed 's/^hbm_vs_n_.*\./hbm_vs_n_<model>./' | sort -u) cp_time_vs_p.png; do
    # a plot's CSV is named by its PNG ("each beside the CSV it was drawn from")
    grep -qF "\`$r13_f\`" "$R13_ROOT/README.md" || grep -qF "\`${r13_f%.csv}.png\`" "$R13_ROOT/README.md" \
        || r13_missing="$r13_missing $r13_f"
done
grep -q "cp.csv" "$T/r13_rep_out" && [ -z "$r13_missing" ] \
    && pass "reader13: README's report section names every file the report lists as written (cp.csv, cp_time_vs_p.png too)" \
    || fail "reader13: README lacks report files:$r13_missing"

# ---- reader13 #12: docs/l2-model.md gives the L2 sizes in MiB, as the hardware profiles hold them ----
grep -q "(40 MiB on the A100, 50 MiB on the H100, 60 MiB on the H200)" "$R13_ROOT/docs/l2-model.md" \
    && grep -q "^l2_bytes = 41943040$" "$R13_ROOT/sim/hw/a100-sxm4-80gb.hw" && grep -q "^l2_bytes = 52428800$" "$R13_ROOT/sim/hw/h100-sxm5.hw" \
    && ! grep -q "[0-9] MB on the A100\|50 MB on the H100" "$R13_ROOT/docs/l2-model.md" \
    && pass "reader13: l2-model.md: 40 MiB, 50 MiB, 60 MiB (= the .hw files' l2_bytes)" \
    || fail "reader13: l2-model.md's L2 sizes"

# ---- reader13 #14: the --trace CSV's columns are documented as the trace has them ----
"$FASIM" io --trace "$T/r13_tr.csv" --algo flash2 --seqlen 200 --batch 2 --heads 2 --kv-heads 1 --block-r 64 --block-c 64 > /dev/null 2>&1
"$FASIM" io --algo flash2 --seqlen 200 --batch 2 --heads 2 --kv-heads 1 --block-r 64 --block-c 64 --breakdown > "$T/r13_trb" 2>&1
r13_first=$(sed -n 2p "$T/r13_tr.csv" | cut -d, -f1)
r13_khead=$(awk -F, '$2 == "K" {print $10}' "$T/r13_tr.csv" | sort -u | tr '\n' ' ')
r13_tail=$(awk -F, '$2 == "K" && $4 == 192 {print $5; exit}' "$T/r13_tr.csv")
r13_ksum=$(awk -F, '$2 == "K" && $3 == "read" {s += $8} END {print s}' "$T/r13_tr.csv")
r13_kbrk=$(awk '$1 == "flash2" && $2 == "K" {print $3}' "$T/r13_trb")
r13_io="$R13_ROOT/docs/io-model.md"
[ "$(head -1 "$T/r13_tr.csv")" = "step,tensor,direction,row0,rows,col0,cols,bytes,batch,head" ] && [ "$r13_first" = 0 ] \
    && [ "$r13_khead" = "0 " ] && [ "$r13_tail" = 8 ] && [ -n "$r13_ksum" ] && [ "$r13_ksum" = "$r13_kbrk" ] \
    && grep -q '^| `step` | the transfer.s sequence number in the run, \*\*from 0\*\* (`fasim animate` counts its steps from 1' "$r13_io" \
    && grep -q '^| `row0`, `rows` | .*in \*\*elements\*\*' "$r13_io" && grep -q '^| `batch`, `head` | .*the K/V head' "$r13_io" \
    && grep -q 'the byte counts of$' "$r13_io" \
    && pass "reader13: io-model.md documents the trace's columns (step from 0, row0/col0 element offsets, K/V head), as a GQA trace has them" \
    || fail "reader13: trace columns: first step '$r13_first', K heads '$r13_khead', tail rows '$r13_tail', K bytes $r13_ksum vs --breakdown $r13_kbrk"
