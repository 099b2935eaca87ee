#!/usr/bin/env python3
# A one-thread tr_e trace (docs/spec.md §4, §5) whose replay would never
# reach its next message: SYNC(START) at ADDR (spin's forever(), `jmp .`),
# then END(exit) after 2^40 instructions, while the trailer says the thread
# retired 1000 (issue 15 case 8: the replay must stop at the trailer's
# count, not run 2^32 instructions).
#   python3 forever_trace.py HEADER_FROM.tmt OUT.tmt ADDR
import sys, zlib
src, out, addr = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
h = bytearray(open(src, 'rb').read()[:64])
assert h[12] == 2 and int.from_bytes(h[8:12], 'little') == 1 and h[13] == 0 and h[33] == 0, "a 1-thread tr_e header"
bits = []
def put(v, w):
    bits.extend((v >> i) & 1 for i in range(w))
def chunked(v, a, b):
    put(v & ((1 << a) - 1), a); v >>= a
    while v:
        put(1, 1); put(v & ((1 << b) - 1), b); v >>= b
    put(0, 1)
ca, cb = h[18], h[19]
chunked(0, ca, cb); put(1, 2); put(0, 2); put(addr, 64)              # SYNC(START, ADDR)
chunked(0, ca, cb); put(2, 2); put(0, 1); put(0, 1); chunked(1 << 40, ca, cb)  # END(exit, iCnt 2^40)
body = bytearray((len(bits) + 7) // 8)
for i, b in enumerate(bits):
    body[i // 8] |= b << (i % 8)
t = bytearray()
t += len(bits).to_bytes(8, 'little') + (10).to_bytes(8, 'little') + (1000).to_bytes(8, 'little')
t += bytes(4)
t += zlib.crc32(bytes(t)).to_bytes(4, 'little') + b'TMTE'
open(out, 'wb').write(bytes(h) + bytes(body) + bytes(t))
