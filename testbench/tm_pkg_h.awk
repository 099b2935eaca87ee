# testbench/tm_pkg_h.awk — the named codes of rtl/tm_pkg.sv as C macros, so
# that the testbench (testbench/cosim.c) drives and reads the RTL with
# tm_pkg's names instead of numbers.  testbench/sim.mk runs it:
#   awk -f testbench/tm_pkg_h.awk rtl/tm_pkg.sv > tm_pkg.h
# Every enum item and localparam whose name is upper case and whose value is
# a literal (decimal, or N'dV) becomes `#define TM_PKG_<NAME> <value>`; a
# literal in another base stops the script (exit 1) rather than be misread.
BEGIN {
    print "/* Generated from rtl/tm_pkg.sv by testbench/tm_pkg_h.awk (testbench/sim.mk): do not edit. */"
    print "#ifndef TM_PKG_H"
    print "#define TM_PKG_H"
    bad = 0
}
{
    l = $0
    sub(/\/\/.*/, "", l)
    gsub(/\/\*[^*]*\*\//, "", l)
    n = index(l, "=")
    if (!n || substr(l, n + 1, 1) == "=" || substr(l, n - 1, 1) ~ /[!<>=]/)
        next
    lhs = substr(l, 1, n - 1)
    rhs = substr(l, n + 1)
    sub(/[ \t]+$/, "", lhs)
    k = split(lhs, w, /[ \t]+/)
    name = w[k]
    if (name !~ /^[A-Z][A-Z0-9_]*$/)
        next
    gsub(/[ \t,;]/, "", rhs)
    if (rhs ~ /^[0-9]*'[dD][0-9_]+$/)
        sub(/^[0-9]*'[dD]/, "", rhs)
    else if (rhs !~ /^[0-9_]+$/) {
        printf "tm_pkg_h.awk: %s line %d: %s = %s: not a decimal literal\n", FILENAME, FNR, name, rhs > "/dev/stderr"
        bad = 1
        exit 1
    }
    gsub(/_/, "", rhs)
    printf "#define TM_PKG_%s %s\n", name, rhs
}
END {
    if (bad)
        exit 1
    print "#endif"
}
