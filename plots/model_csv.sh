#!/bin/sh
# Data of the time-model plots (`make plots`): fasim's predictions beside the H200 measurements.
#
#   sh plots/model_csv.sh tflops FASIM MEASURED.csv OUT.csv
#       runs `FASIM compare --measured MEASURED.csv --hw h200 --format csv` and keeps the sweep
#       rows (B * N_k = 16384 tokens, H_kv * d = 2048) of the plotted kernels; writes
#       kernel,pass,d,causal,N,meas_tflops,pred_tflops sorted so that each series is in N order.
#       F = 4 B H_kv N_k^2 d (halved when causal, x 2.5 for the backward); N = N_k and H_kv, not
#       N_q and H, because v1's rows split N_q into chunks of 256 (H = H_kv N_k / 256).
#   sh plots/model_csv.sh pipes FASIM D OUT.csv
#       runs `FASIM io --profile KEY --seqlen 4096 --batch 4 --heads 2048/D --headdim D
#       --dtype bf16 (v2: fp32, the kernel's dtype) --hw h200 --format csv` for each kernel profile (a profile that errors for
#       the shape is skipped, with a note); writes profile,pred_ms,tensor_ms,smem_ms,exp_ms,
#       fp32_ms,l2_ms,dram_ms,busy_sum_ms,busiest,bound,dtype (busy times of the pipes, in ms,
#       each the pipe's work over all SMs / the SMs; pred_ms is the CSV's time_s, busiest its
#       busiest_pipe: the pipe with the largest busy time; bound its bound: what sets the time, as
#       fasim io prints it -- the tile's longer phase, the grid, L2 or DRAM, "+ tail"; dtype the
#       dtype timed).  The columns are docs/report-csv.md's "pipes_d*.csv".
# Columns of fasim's CSV are found by name in its header.  POSIX sh + awk.
set -eu

usage() { echo "usage: $0 tflops FASIM MEASURED.csv OUT.csv | pipes FASIM D OUT.csv" >&2; exit 2; }
[ $# -eq 4 ] || usage
mode=$1 fasim=$2 arg=$3 out=$4
tmp="$out.tmp.$$"
raw="$out.raw.$$"
trap 'rm -f "$tmp" "$raw" "$raw.rows" "$raw.err"' EXIT
trap 'exit 1' INT TERM

case $mode in
tflops)
    "$fasim" compare --measured "$arg" --hw h200 --format csv >"$raw"
    awk -F, -v OFS=, '
    NR == 1 {
        for (i = 1; i <= NF; i++) col[$i] = i
        split("kernel B H_kv N_k d causal pass pred_ms meas_ms", need, " ")
        for (i in need) if (!(need[i] in col)) { print "model_csv: no column " need[i] > "/dev/stderr"; bad = 1; exit 1 }
        split("v1 v2 v3 v3_mt2 v3_br256 v4 v4_bc64 sdpa_flash sdpa_cudnn", f, " ")
        for (i in f) want[f[i] ",fwd"] = 1
        split("v3_bwd v3_bwd_bc64 v3_bwd_occ2 sdpa_flash_bwd sdpa_cudnn_bwd", b, " ")
        for (i in b) want[b[i] ",bwd"] = 1
        next
    }
    function tf(ms) { return (ms + 0 > 0) ? sprintf("%.2f", F / (ms * 1e-3) / 1e12) : "nan" }
    {
        k = $col["kernel"]; p = $col["pass"]; B = $col["B"]; Hkv = $col["H_kv"]
        N = $col["N_k"]; d = $col["d"]; c = $col["causal"]
        if (!((k "," p) in want) || B * N != 16384 || Hkv * d != 2048) next
        if (k == "v1" && c != 0) next
        key = k "," p "," d "," c "," N
        if (key in seen) next                  # first row of a shape only (lines stay in N order)
        seen[key] = 1
        F = 4 * B * Hkv * N * N * d
        if (c != 0) F /= 2
        if (p == "bwd") F *= 2.5
        print key, tf($col["meas_ms"]), tf($col["pred_ms"])
        rows++
    }
    END { if (bad) exit 1; if (!rows) { print "model_csv: no sweep rows in the compare output" > "/dev/stderr"; exit 1 } }
    ' "$raw" >"$raw.rows"
    { echo "kernel,pass,d,causal,N,meas_tflops,pred_tflops"
      sort -t, -k2,2 -k1,1 -k3,3n -k4,4n -k5,5n "$raw.rows"; } >"$tmp"
    ;;
pipes)
    d=$arg
    case $d in ''|*[!0-9]*) usage ;; esac
    h=$((2048 / d))
    echo "profile,pred_ms,tensor_ms,smem_ms,exp_ms,fp32_ms,l2_ms,dram_ms,busy_sum_ms,busiest,bound,dtype" >"$tmp"
    n=0
    for key in math fa1 fa2 fa3 cudnn v2 v3 v3_mt2 v4 v4_bc64; do
        dt=bf16
        [ "$key" = v2 ] && dt=fp32 # an fp32 SIMT kernel: fasim times it in the dtype it is built for
        if ! "$fasim" io --profile "$key" --seqlen 4096 --batch 4 --heads "$h" --headdim "$d" \
                --dtype "$dt" --hw h200 --format csv >"$raw" 2>"$raw.err"; then
            echo "model_csv: profile $key skipped at d = $d: $(head -n 1 "$raw.err")" >&2
            continue
        fi
        awk -F, -v OFS=, -v key="$key" -v dt="$dt" '
        NR == 1 {
            for (i = 1; i <= NF; i++) col[$i] = i
            split("profile time_s busiest_pipe bound busy_tensor_s busy_smem_s busy_exp_s busy_fp32_s busy_l2_s busy_dram_s", need, " ")
            for (i in need) if (!(need[i] in col)) { print "model_csv: no column " need[i] > "/dev/stderr"; exit 1 }
            next
        }
        function ms(name) { return $col[name] * 1e3 }
        $col["profile"] == key && !done {
            t = ms("busy_tensor_s"); s = ms("busy_smem_s"); e = ms("busy_exp_s")
            f = ms("busy_fp32_s"); l = ms("busy_l2_s"); r = ms("busy_dram_s")
            printf "%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%s,%s\n", key, ms("time_s"), \
                   t, s, e, f, l, r, t + s + e + f + l + r, $col["busiest_pipe"], $col["bound"], dt
            done = 1
        }
        END { if (!done) exit 1 }
        ' "$raw" >>"$tmp" || { echo "model_csv: profile $key: no row in fasim io's CSV" >&2; exit 1; }
        n=$((n + 1))
    done
    [ "$n" -gt 0 ] || { echo "model_csv: every profile failed at d = $d" >&2; exit 1; }
    ;;
*) usage ;;
esac
mv "$tmp" "$out"
