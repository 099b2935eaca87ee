#!/usr/bin/env bash
# make bench: replay throughput on a recorded real program (pigz -p 4 on a
# generated file, TM_BENCH_DEC_MB MB, default 4): tm decode --from-binary
# (classes from the ELF files, Zydis) next to tm decode --verify (classes
# from the commit stream), in the same run, best of TM_BENCH_REPS (3).
# Prints M instructions/s of each; the target for --from-binary is >= 20.
# Then Intel PT on the same execution (tm pt, verified against the commit
# stream): libipt's instruction and block decoders replay the PT buffers
# over the same ELF files, and the ratio of our replay from the binaries to
# each is printed (issue 19: ours at least as fast as libipt's).
# The from-binary replay of the same execution with tage-l is timed too,
# with tr_e and with the adaptive encoding tr_a.
# usage: bench/decode_bench.sh BUILD
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
mb=${TM_BENCH_DEC_MB:-4}
gen_text "$dir/in" "$mb"
echo "bench: recording pigz -p 4 on $mb MB (tr_e, large) ..." >&2
"$TM" record --config large --encoding tr_e --commit -o "$dir/p" -- pigz -p 4 -c "$dir/in" > /dev/null
insns=$("$TM" decode --verify -q "$dir/p.tmc" "$dir/p.tmt" 2>/dev/null | sed -n 's/^OK: \([0-9]*\) instructions.*/\1/p')
v=$(best "$TM" decode --verify -q "$dir/p.tmc" "$dir/p.tmt")
fb=$(best "$TM" decode --from-binary --summary "$dir/p.tmt")
fbv=$(best "$TM" decode --from-binary --verify -q "$dir/p.tmc" "$dir/p.tmt")
# the same execution with the TAGE-class predictors (docs/spec.md §3.3.1-2)
"$TM" model --config tage-l "$dir/p.tmc" -o "$dir/p_tl.tmt" > /dev/null 2>&1
fbt=$(best "$TM" decode --from-binary --summary --modules "$dir/p.modules" "$dir/p_tl.tmt")
# and with the adaptive encoding (docs/spec.md §4.9)
"$TM" model --config tage-l --encoding tr_a "$dir/p.tmc" -o "$dir/p_ta.tmt" > /dev/null 2>&1
fba=$(best "$TM" decode --from-binary --summary --modules "$dir/p.modules" "$dir/p_ta.tmt")
echo "bench: Intel PT of the same execution (tm pt --verify) ..." >&2
"$TM" pt -q --verify "$dir/p.tmc" -o "$dir/p"
ptn=$("$TM" pt --decode "$dir/p" | sed -n 's/^decoded \([0-9]*\) instructions.*/\1/p')
pti=$(best "$TM" pt --decode "$dir/p")
ptb=$(best "$TM" pt --decode --block "$dir/p")
python3 - "$insns" "$v" "$fb" "$fbv" "$ptn" "$pti" "$ptb" "$fbt" "$fba" <<'PY'
import sys
n = int(sys.argv[1]); v, fb, fbv = map(float, sys.argv[2:5])
ptn = int(sys.argv[5]); pti, ptb, fbt, fba = map(float, sys.argv[6:10])
print("replay of pigz -p 4 (%.1f M instructions, tr_e, large):" % (n / 1e6))
print("  %-52s %7.2f s %8.1f M instructions/s" % ("tm decode --verify (classes from the commit stream)", v, n / v / 1e6))
print("  %-52s %7.2f s %8.1f M instructions/s%s" % ("tm decode --from-binary (classes from the binaries)", fb, n / fb / 1e6,
      "" if n / fb / 1e6 >= 20 else "  (below the 20 M/s target)"))
print("  %-52s %7.2f s %8.1f M instructions/s" % ("tm decode --from-binary --verify (both, compared)", fbv, n / fbv / 1e6))
print("  %-52s %7.2f s %8.1f M instructions/s (%.2fx large's)" % ("tm decode --from-binary, tage-l (TAGE + ITTAGE)", fbt,
      n / fbt / 1e6, fb / fbt))
print("  %-52s %7.2f s %8.1f M instructions/s (%.2fx large's)" % ("tm decode --from-binary, tage-l, tr_a", fba,
      n / fba / 1e6, fb / fba))
if ptn != n:
    sys.exit("bench: libipt decoded %d instructions, the replay %d" % (ptn, n))
print("the same execution as Intel PT (tm pt), decoded by libipt over the same ELF files:")
print("  %-52s %7.2f s %8.1f M instructions/s" % ("libipt instruction decoder (tm pt --decode)", pti, n / pti / 1e6))
print("  %-52s %7.2f s %8.1f M instructions/s" % ("libipt block decoder (tm pt --decode --block)", ptb, n / ptb / 1e6))
print("  our replay from the binaries vs libipt: %.2fx the instruction decoder's speed, %.2fx the block decoder's"
      % (pti / fb, ptb / fb))
PY
