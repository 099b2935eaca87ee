#!/usr/bin/env bash
# tier: check
# tm record --mode ... -a -d: the thesis tools' disassembly column (seeds/000
# Figs. 4.2, 4.8, 4.13, 4.22, 4.36) on real programs under the Valgrind
# frontend, checked against objdump's disassembly of the same addresses:
# 1. mcftrace on BranchTest and BranchEnumeration (every branch class, jcc,
#    loop, jrcxz): every descriptor is the one without -d plus its branch's
#    instruction, as objdump -M intel decodes it at that address;
# 2. mlstrace --store on mlsTest (C, shared libraries): the loads and stores
#    of the program's own code as objdump decodes them, none "(unknown)"
#    (the libraries' code comes from their files too);
# 3. mcftraptor on traptortest and mlvcfiat on evict: the descriptors of
#    the run without -d, each with an instruction of the program of the
#    right kind (a conditional branch, an indirect branch, a load);
# 4. bad command lines: -d without -a or without --mode, one line, exit 2;
#    tm record --help shows -d and the options the Pin tool's knobs become
#    (recmodes/knobs.c).
# Recordings run in the sanitizer build (TM).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
for p in branchtest branchenum mlstest traptortest evict; do
    [ -x "$P/$p" ] || die "$P/$p is not built (make BUILD=$B programs)"
done
command -v objdump > /dev/null || die "objdump is not installed (binutils: make deps)"

# rec WANT-STATUS BASE [tm record options] -- PROG ARGS
rec() {
    local want=$1 base=$2 st=0
    shift 2
    "$TM" record "$@" > "$base.out" 2> "$base.err" || st=$?
    sancheck "$base.err" "tm record $*"
    if [ "$st" -ne "$want" ]; then
        sed 's/^/    /' "$base.err" | tail -n 15
        die "tm record $* (in $TMP): exit status $st, wanted $want"
    fi
}

# check_disasm MODE PROG TXT PLAIN: TXT (with -d) is PLAIN (without) plus a
# disassembly per line, which objdump confirms (python below).  PLAIN "-":
# none (mlstrace --store: values differ from run to run; the disassembly
# follows the value).
check_disasm() {
    python3 - "$@" << 'PY'
import re, subprocess, sys
mode, prog, txt, plain = sys.argv[1:5]
# objdump's Intel syntax as Zydis (and Pin's XED) spell it
SYN = {"ja": "jnbe", "jae": "jnb", "je": "jz", "jne": "jnz", "jg": "jnle", "jge": "jnl", "jc": "jb",
       "jnae": "jb", "jna": "jbe", "jnc": "jnb", "jpe": "jp", "jpo": "jnp", "jnge": "jl", "jng": "jle",
       "loopz": "loope", "loopnz": "loopne", "retq": "ret", "callq": "call", "jmpq": "jmp"}
def norm(t, objdump):
    t = t.split("#")[0].strip().lower() if objdump else t.strip().lower()
    t = re.sub(r"\s+", " ", t)
    mn, _, ops = t.partition(" ")
    mn = SYN.get(mn, mn) if objdump else mn
    ops = ops.strip()
    m = re.fullmatch(r"([0-9a-f]+) <[^>]*>", ops)
    if objdump and m:
        ops = "0x" + m.group(1)
    ops = re.sub(r"\s*,\s*", ", ", ops)
    t = (mn + " " + ops).strip()
    # string instructions: objdump names the implicit operands, Zydis the size
    m = re.fullmatch(r"((?:rep[a-z]* )?)(movs|stos|lods|scas|cmps) (byte|word|dword|qword) ptr .*", t)
    if objdump and m:
        t = m.group(1) + m.group(2) + {"byte": "b", "word": "w", "dword": "d", "qword": "q"}[m.group(3)]
    return t
code = {}
for line in subprocess.run(["objdump", "-d", "-M", "intel", "--no-show-raw-insn", prog],
                           capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\t(.*)$", line)
    if m and m.group(2).strip() and not m.group(2).startswith("(bad)"):
        code[int(m.group(1), 16)] = norm(m.group(2), True)
lines = open(txt).read().splitlines()
if plain == "-":  # mlstrace --store: tid, L|S, pc, addr, size, value, then the disassembly
    base = []
    for l in lines:
        f = l.split(", ", 5)
        base.append(", ".join(f[:5] + [f[5].split(" ")[0]]) if len(f) == 6 else l)
else:
    base = open(plain).read().splitlines()
if len(lines) != len(base) or not lines:
    sys.exit(f"{txt}: {len(lines)} descriptors, {len(base)} without -d")
cond = re.compile(r"(j(?!mp)[a-z]+|loop[a-z]*|jrcxz|jecxz) 0x[0-9a-f]+$")
indirect = re.compile(r"(ret|(call|jmp) (?!0x).*)$")
checked, texts = 0, set(code.values())
for n, (l, b) in enumerate(zip(lines, base), 1):
    if not l.startswith(b + " "):
        sys.exit(f"{txt}:{n}: '{l}' is not '{b}' and a disassembly")
    dis = norm(l[len(b) + 1:], False)
    if dis in ("(unknown)", "(bad)"):
        sys.exit(f"{txt}:{n}: {dis}")
    if mode in ("mcftrace", "mlstrace"):
        f = b.split(", ")
        pc = int(f[2] if f[1] in ("L", "S") else f[1], 16)
        if pc in code:
            if code[pc] != dis:
                sys.exit(f"{txt}:{n}: '{dis}' at 0x{pc:x}, objdump: '{code[pc]}'")
            checked += 1
        elif mode == "mcftrace":
            sys.exit(f"{txt}:{n}: 0x{pc:x} is no instruction of {prog}")
    else:
        fields = b.split(", ")
        if dis not in texts:
            sys.exit(f"{txt}:{n}: '{dis}' is no instruction of {prog}")
        if mode == "mcftraptor" and len(fields) == 2 and not cond.fullmatch(dis):
            sys.exit(f"{txt}:{n}: outcome descriptor of '{dis}', not a conditional branch")
        if mode == "mcftraptor" and len(fields) == 4 and fields[2] == "T" and not indirect.fullmatch(dis):
            sys.exit(f"{txt}:{n}: target descriptor of '{dis}', not an indirect branch")
        if mode == "mlvcfiat" and not re.search(r"\[|^(ret|pop|leave|(rep[a-z]* )?(movs|lods|cmps|scas))", dis):
            sys.exit(f"{txt}:{n}: data descriptor of '{dis}', not a load")
        checked += 1
print(checked)
PY
}

# no_unknown BASE: the statistics say no disassembly was unknown.
no_unknown() {
    grep -q '^tm: -d: 0 descriptors with the disassembly "(unknown)"' "$1.Statistics" ||
        die "$1.Statistics: $(grep '^tm: -d:' "$1.Statistics" || echo 'no tm: -d: line')"
}

echo "== 1. mcftrace -a -d against objdump"
for p in branchtest branchenum; do
    want=0
    [ $p = branchtest ] && want=7
    rec $want $p -a -d --mode mcftrace -o $p -- "$P/$p"
    rec $want ${p}_plain -a --mode mcftrace -o ${p}_plain -- "$P/$p"
    if ! grep -qv ' (unknown)$' $p.txt; then
        die "$p: every disassembly is (unknown): tm record does not give the descriptor writer the modules (record/recout.c tm_rec_on_module must call tm_recmode_module)"
    fi
    n=$(check_disasm mcftrace "$P/$p" $p.txt ${p}_plain.txt) || die "$p: $n"
    [ "$n" -gt 10 ] || die "$p: only $n descriptors checked"
    no_unknown $p
    ok "$p mcftrace -d: $n descriptors, each with objdump's instruction at its address"
done
# Fig. 4.8's form: "..., C, D, NT jnbe 0x..."
grep -qE '^0, 0x[0-9a-f]{16}, 0x[0-9a-f]{16}, C, D, NT jnbe 0x[0-9a-f]+$' branchenum.txt ||
    die "branchenum.txt: no 'C, D, NT jnbe 0x...' line"
grep -qE ', U, I, T ret$' branchtest.txt || die "branchtest.txt: no 'U, I, T ret' line"
grep -qE ', U, I, T call rax$' branchtest.txt || die "branchtest.txt: no 'U, I, T call rax' line"

echo "== 2. mlstrace --store -a -d against objdump"
rec 0 mls --mode mlstrace --store -a -d -o mls -- "$P/mlstest"
n=$(check_disasm mlstrace "$P/mlstest" mls.txt -) || die "mlstest: $n"
[ "$n" -gt 100 ] || die "mlstest: only $n descriptors of the program's code checked"
no_unknown mls
grep -qE ', [0-9]+, 0x[0-9a-f]+ (v?mov[a-z]*|fld|fstp) ' mls.txt || die "mls.txt: no mov/fld descriptor"
ok "mlstest mlstrace --store -d: $n descriptors of the program's code as objdump decodes them, the libraries' known too"

echo "== 3. mcftraptor and mlvcfiat -a -d"
rec 0 tt --gshare 256 --ras 8 --ibtb 16 --mode mcftraptor -a -d -o tt -- "$P/traptortest" 3
rec 0 tt_plain --gshare 256 --ras 8 --ibtb 16 --mode mcftraptor -a -o tt_plain -- "$P/traptortest" 3
n=$(check_disasm mcftraptor "$P/traptortest" tt.txt tt_plain.txt) || die "traptortest: $n"
no_unknown tt
grep -qE '^0, [0-9]+, T, 0x[0-9a-f]{16} call ' tt.txt || die "tt.txt: no target descriptor of a call"
grep -qE '^0, [0-9]+ j[a-z]+ 0x[0-9a-f]+$' tt.txt || die "tt.txt: no outcome descriptor of a jcc"
ok "traptortest mcftraptor -d: $n descriptors, each of a branch of the right kind"
cf="--cache 32 --assoc 2 --line 16 --granularity 4"
rec 0 ev $cf --mode mlvcfiat -a -d -o ev -- "$P/evict"
rec 0 ev_plain $cf --mode mlvcfiat -a -o ev_plain -- "$P/evict"
n=$(check_disasm mlvcfiat "$P/evict" ev.txt ev_plain.txt) || die "evict: $n"
no_unknown ev
ok "evict mlvcfiat -d: $n descriptors, each of a load of the program"

echo "== 4. bad command lines, --help"
bad() {
    local want=$1 st=0
    shift
    "$TM" record "$@" > bad.out 2> bad.err || st=$?
    sancheck bad.err "tm record $*"
    [ "$st" -eq 2 ] || die "tm record $*: exit status $st, wanted 2"
    [ "$(wc -l < bad.err)" -eq 1 ] || die "tm record $*: not one line: $(cat bad.err)"
    grep -qF -- "$want" bad.err || die "tm record $*: '$(cat bad.err)' lacks '$want'"
}
bad "tm record: -d: only with -a" --mode mcftrace -d -o b1 -- "$P/branchtest"
bad "tm record: -d needs --mode" -d -o b2 -- "$P/branchtest"
ls b1.* b2.* > /dev/null 2>&1 && die "a refused command line left files: $(ls b1.* b2.*)"
"$TM" record --help > help.txt 2>&1 || die "tm record --help failed"
grep -qE '^  -d  +with -a: each descriptor ends with its instruction' help.txt || die "tm record --help: no -d"
# what recmodes/knobs.c translates the Pin tool's knobs into
for o in --mode -a -c -d -f --no-shared-libs --filter-rtn -l -o -s --store --gshare --ras --ibtb --shared \
    --assoc --granularity --line --cache --cfiat-shared; do
    grep -qE -- " $o( |$)" help.txt || die "tm record --help does not show $o"
done
ok "-d without -a or --mode: one line, exit 2; --help shows -d and every knob's option"

[ "$fails" -eq 0 ]
