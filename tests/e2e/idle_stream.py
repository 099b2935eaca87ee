#!/usr/bin/env python3
# A two-thread commit stream (docs/spec.md §2) with an idle stretch of GAP
# cycles in the middle: python3 idle_stream.py OUT.tmc GAP (t_faults.sh,
# issue 15 case 17: tm cosim passes such stretches in one step).
import sys, subprocess
def uv(v):
    out = bytearray()
    while v >= 128:
        out.append((v & 127) | 128); v >>= 7
    out.append(v); return bytes(out)
def sv(v):
    return uv(((v << 1) ^ (v >> 63)) & (2**64 - 1))
gap = int(sys.argv[2])
recs = bytearray(b'TMC\x00\x01\x00\x10\x00\x02\x00\x00\x00\x00\x00\x00\x00')
n = 0
def rec(b):
    global n
    recs.extend(b); n += 1
pc = 0x401000
rec(b'\x01' + uv(0) + uv(0) + b'\x00' + uv(pc))            # c0 START t0
rec(b'\x01' + uv(1) + uv(0) + b'\x00' + uv(0x402000))      # c0 START t1
for i in range(3):
    rec(b'\x03' + uv(0) + uv(1) + uv(5) + uv(17))          # RUN t0
    rec(b'\x04' + uv(0) + uv(1) + b'\x08\x02' + sv(0) + sv(-17))  # BRANCH cond T back
rec(b'\x03' + uv(1) + uv(0) + uv(3) + uv(9))               # RUN t1 same cycle
rec(b'\x04' + uv(1) + uv(1) + b'\x0c\x02' + sv(0) + sv(-9))   # jcc?? ijump class 3 T to 0x402000
rec(b'\x03' + uv(0) + uv(gap) + uv(5) + uv(17))            # after the idle gap
rec(b'\x04' + uv(0) + uv(1) + b'\x00\x02' + sv(0) + sv(-17))  # cond not taken
rec(b'\x02' + uv(0) + uv(1) + b'\x00')                      # EXIT t0
rec(b'\x03' + uv(1) + uv(0) + uv(2) + uv(4))
rec(b'\x02' + uv(1) + uv(3) + b'\x00')                      # EXIT t1
recs.extend(b'\x08' + uv(n))
open(sys.argv[1] + '.raw', 'wb').write(recs)
subprocess.run(['zstd', '-q', '-f', sys.argv[1] + '.raw', '-o', sys.argv[1]], check=True)
