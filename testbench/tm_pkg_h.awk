# testbench/tm_pkg_h.awk — the named codes of rtl/tm_pkg.sv as C macros, so
# that the testbench (testbench/cosim.c) drives and reads the RTL with
# tm_pkg's names instead of numbers.  testbench/sim.mk runs it:
#   awk -f testbench/tm_pkg_h.awk rtl/tm_pkg.sv > tm_pkg.h
# Every enum item and localparam whose name is upper case and whose value is
# a literal (decimal, or N'dV) becomes `#define TM_PKG_<NAME> <value>`; a
# literal in another base stops the script (exit 1) rather than be misread.
# A packed struct S (typedef struct packed { ... } S;) of fields `logic F;`,
# `logic [H:0] F;` or `E F;` with E an enum of this package gives
# TM_PKG_<S>_BITS (its width) and per field TM_PKG_<S>_<F>_LSB and _W (the
# first field is the most significant); another field type stops the script.
BEGIN {
    print "/* Generated from rtl/tm_pkg.sv by testbench/tm_pkg_h.awk (testbench/sim.mk): do not edit. */"
    print "#ifndef TM_PKG_H"
    print "#define TM_PKG_H"
    bad = 0
}
function fail(what) {
    printf "tm_pkg_h.awk: %s line %d: %s\n", FILENAME, FNR, what > "/dev/stderr"
    bad = 1
    exit 1
}
# the width of [H:L] (L = 0)
function range_w(r,    h) {
    h = r
    sub(/^\[/, "", h)
    sub(/:0\]$/, "", h)
    if (h !~ /^[0-9]+$/)
        fail("range " r ": not [H:0]")
    return h + 1
}
{
    l = $0
    sub(/\/\/.*/, "", l)
    gsub(/\/\*[^*]*\*\//, "", l)
    # enums: remember their widths (typedef enum logic [H:0] { ... } NAME;)
    if (l ~ /typedef[ \t]+enum[ \t]+logic[ \t]*\[/) {
        r = l
        sub(/^[^[]*/, "", r)
        sub(/\].*/, "]", r)
        enum_w = range_w(r)
    }
    if (enum_w && l ~ /^[ \t]*}[ \t]*[a-z_0-9]+[ \t]*;/) {
        e = l
        gsub(/[ \t};]/, "", e)
        width[e] = enum_w
        enum_w = 0
    }
    # packed structs
    if (l ~ /typedef[ \t]+struct[ \t]+packed[ \t]*{/) {
        in_struct = 1
        nf = 0
        next
    }
    if (in_struct) {
        if (l ~ /^[ \t]*}/) {
            sname = l
            gsub(/[ \t};]/, "", sname)
            sname = toupper(sname)
            total = 0
            for (i = 1; i <= nf; i++)
                total += fw[i]
            printf "#define TM_PKG_%s_BITS %d\n", sname, total
            lsb = total
            for (i = 1; i <= nf; i++) {
                lsb -= fw[i]
                printf "#define TM_PKG_%s_%s_LSB %d\n#define TM_PKG_%s_%s_W %d\n", sname, fname[i], lsb,
                       sname, fname[i], fw[i]
            }
            in_struct = 0
            next
        }
        if (l ~ /^[ \t]*$/)
            next
        f = l
        gsub(/;/, "", f)
        sub(/^[ \t]+/, "", f)
        sub(/[ \t]+$/, "", f)
        k = split(f, w, /[ \t]+/)
        name = toupper(w[k])
        if (w[1] == "logic" && w[2] ~ /^\[/)
            wd = range_w(w[2])
        else if (w[1] == "logic")
            wd = 1
        else if (w[1] in width)
            wd = width[w[1]]
        else
            fail("struct field of unknown width: " l)
        nf++
        fw[nf] = wd
        fname[nf] = name
        next
    }
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
