#!/usr/bin/env python3
"""Emit tests/isa/{lb,lh,lw,lbu,lhu,sb,sh,sw}.S; expected values from the ISA definition."""
import sys, os
M = 0xffffffff
def u32(x): return x & M
def h(x): return f'0x{u32(x):08x}'
DATA = [0x81, 0x7f, 0x00, 0xff, 0x12, 0x80, 0xfe, 0x34, 0xef, 0xbe, 0xad, 0xde, 0x01, 0x70, 0x80, 0x00]
WIDTH = {'b': 1, 'h': 2, 'w': 4}
def load(data, off, width, signed):
    v = int.from_bytes(bytes(data[off:off + width]), 'little')
    if signed and v >> (8 * width - 1):
        v -= 1 << (8 * width)
    return u32(v)

LDESC = {
  'lb': 'load a byte, sign-extended', 'lbu': 'load a byte, zero-extended',
  'lh': 'load a halfword (2-byte aligned), sign-extended', 'lhu': 'load a halfword (2-byte aligned), zero-extended',
  'lw': 'load a word (4-byte aligned)',
}
DATA_BLOCK = ['TEST_DATA_BEGIN',
              '  .balign 16',
              '  # 16 bytes of mixed signs: words 0xff007f81 0x34fe8012 0xdeadbeef 0x00807001.',
              'isa_ld_data:',
              '  .byte ' + ', '.join(f'0x{b:02x}' for b in DATA[:8]),
              '  .byte ' + ', '.join(f'0x{b:02x}' for b in DATA[8:]),
              'isa_ld_end:',
              'TEST_DATA_END']

def gen_load(op):
    w = WIDTH[op[1]]; signed = not op.endswith('u') and op != 'lw'
    L = [f'# {op}: {LDESC[op]}.',
         '# Every aligned offset in 16 bytes of data, positive, negative and extreme (+2047/-2048)',
         '# immediates, rd == base, the loaded value used 1..4 instructions',
         '# later (0 = load-use hazard), the base register produced just before, x0 as rd.',
         '#include "isa_macros.h"', '', 'TEST_CODE_BEGIN', '  # Every aligned offset.']
    n = 2
    for off in range(0, 16, w):
        L.append(f'  TEST_LD_OP({n}, {op}, {h(load(DATA, off, w, signed))}, {off}, isa_ld_data)'); n += 1
    L += ['', '  # Negative offsets from the end, and the extreme immediates.']
    n = 20
    for off in range(16 - w, -1, -4 * w if w < 4 else -4)[:3]:
        L.append(f'  TEST_LD_OP({n}, {op}, {h(load(DATA, off, w, signed))}, {off - 16}, isa_ld_end)'); n += 1
    off = 16 - w
    L.append(f'  TEST_LD_OP({n}, {op}, {h(load(DATA, off, w, signed))}, 2047, isa_ld_data + {off} - 2047)'); n += 1
    L.append(f'  TEST_LD_OP({n}, {op}, {h(load(DATA, 0, w, signed))}, -2048, isa_ld_data + 2048)'); n += 1
    L.append(f'  TEST_LD_OP({n}, {op}, {h(load(DATA, 4, w, signed))}, 0x7fc, isa_ld_data + 4 - 0x7fc)'); n += 1
    L += ['', '  # rd == base register.']
    n = 30
    off = 4 if w < 4 else 8
    L.append(f'  TEST_CASE({n}, x1, {h(load(DATA, off, w, signed))}, la x1, isa_ld_data; {op} x1, {off}(x1))'); n += 1
    L += ['', '  # The loaded value used 1..4 instructions later (0 nops = load-use hazard).']
    n = 40
    offs = [o for o in range(0, 16, w)]
    for k in range(4):
        off = offs[(k * 3 + 1) % len(offs)]
        L.append(f'  TEST_LD_DEST_BYPASS({n}, {k}, {op}, {h(load(DATA, off, w, signed))}, {off}, isa_ld_data)'); n += 1
    L += ['  # Load-use into both sources of an ALU op, and into a store (data and address).']
    o1, o2 = offs[1], offs[-1]
    a, b = load(DATA, o1, w, signed), load(DATA, o2, w, signed)
    L.append(f'  TEST_CASE({n}, x14, {h(a + b)}, la x1, isa_ld_data; {op} x2, {o1}(x1); {op} x3, {o2}(x1); add x14, x2, x3)'); n += 1
    L.append(f'  TEST_CASE({n}, x14, {h(a + a)}, la x1, isa_ld_data; {op} x2, {o1}(x1); add x14, x2, x2)'); n += 1
    L.append(f'  TEST_CASE({n}, x14, {h(a)}, la x1, isa_ld_data; la x5, isa_ld_scratch; {op} x2, {o1}(x1); sw x2, 0(x5); lw x14, 0(x5))'); n += 1
    L.append(f'  TEST_CASE({n}, x14, 0x0000abcd, la x1, isa_ld_ptr; li x2, 0xabcd; lw x5, 0(x1); sw x2, 0(x5); lw x14, 0(x5))'); n += 1
    L += ['  # Load-use into a branch.']
    L.append(f'  TEST_CASE({n}, x14, 1, li x14, 0; la x1, isa_ld_data; li x2, {h(a)}; {op} x3, {o1}(x1); bne x3, x2, isa_fail; li x14, 1)'); n += 1
    L += ['', '  # The base register produced 1..3 instructions before the load.']
    n = 50
    for k in range(3):
        off = offs[(k * 5 + 2) % len(offs)]
        L.append(f'  TEST_LD_SRC1_BYPASS({n}, {k}, {op}, {h(load(DATA, off, w, signed))}, {off}, isa_ld_data)'); n += 1
    L += ['', '  # x0 as rd: the load happens, nothing is written or forwarded.']
    n = 60
    L.append(f'  TEST_CASE({n}, x14, 0, la x1, isa_ld_data; {op} x0, {16 - w}(x1); add x14, x0, x0)'); n += 1
    L.append(f'  TEST_CASE({n}, x14, 0, la x1, isa_ld_data; {op} x0, 0(x1); nop; addi x14, x0, 0)'); n += 1
    L.append('TEST_CODE_END')
    L.append('')
    L += DATA_BLOCK[:-1]
    L += ['isa_ld_ptr: .word isa_ld_scratch', 'isa_ld_scratch: .word 0', 'TEST_DATA_END']
    return '\n'.join(L) + '\n'

SDESC = {'sb': 'store the low byte of rs2', 'sh': 'store the low halfword of rs2 (2-byte aligned)',
         'sw': 'store a word (4-byte aligned)'}
LD_OF = {'sb': ('lb', 'lbu'), 'sh': ('lh', 'lhu'), 'sw': ('lw', 'lw')}

def gen_store(op):
    w = WIDTH[op[1]]
    lds, ldu = LD_OF[op]
    L = [f'# {op}: {SDESC[op]}.',
         '# Every aligned offset, read back at once (store-to-load forwarding) and',
         '# after 1..3 instructions; only the stored bytes change; positive, negative and extreme',
         '# offsets; store data and base produced just before the store; x0 as data; a load from',
         '# another address right after a store is not affected.',
         '#include "isa_macros.h"', '', 'TEST_CODE_BEGIN', '  # Store, then load back immediately with the signed and unsigned load of the same width.']
    n = 2
    vals = {1: [0xaa, 0x00, 0x7f, 0x80], 2: [0xaaaa, 0x0000, 0x7fff, 0x8000, 0xbeef, 0x1234], 4: [0xaaaa5555, 0x00000000, 0x7fffffff, 0x80000000, 0xdeadbeef, 0x01234567, 0xffffffff]}[w]
    k = 0
    for off in range(0, 8, w):
        for ld in sorted({lds, ldu}):
            v = vals[k % len(vals)]; k += 1
            exp = load(list((v & ((1 << (8 * w)) - 1)).to_bytes(w, 'little')), 0, w, ld in ('lb', 'lh'))
            # TEST_ST_OP stores `result` itself, so pass the sign-/zero-extended value as stored data.
            L.append(f'  TEST_ST_OP({n}, {ld}, {op}, {h(exp)}, {off}, isa_st_data)'); n += 1
    L += ['', '  # Only the stored bytes change (the rest of the word keeps its fill); upper bits of rs2 are ignored.']
    n = 30
    fill = 0x11223344
    for off in range(0, 4, w):
        v = 0xcafebeef ^ (off * 0x01010101)
        mask = ((1 << (8 * w)) - 1) << (8 * off)
        word = (fill & ~mask) | ((v << (8 * off)) & mask)
        L.append(f'  TEST_ST_MERGE({n}, {op}, {h(fill)}, {h(v)}, {off}, {h(word)}, isa_st_data)'); n += 1
    fill = 0xeeddccbb
    for off in range(0, 4, w):
        v = 0x00000000
        mask = ((1 << (8 * w)) - 1) << (8 * off)
        word = (fill & ~mask)
        L.append(f'  TEST_ST_MERGE({n}, {op}, {h(fill)}, {h(v)}, {off}, {h(word)}, isa_st_data)'); n += 1
    if w < 4:
        L += ['  # A word store, then a narrower store into it, then each part read back (merging).']
        for off in range(0, 4, w):
            v = 0xa5a5a5a5
            mask = ((1 << (8 * w)) - 1) << (8 * off)
            word = (0x11223344 & ~mask) | ((v << (8 * off)) & mask)
            nxt = (off + w) % 4
            exp = (word >> (8 * nxt)) & ((1 << (8 * w)) - 1)
            L.append(f'  TEST_CASE({n}, x14, {h(exp)}, la x1, isa_st_data; li x2, 0x11223344; li x3, {h(v)}; '
                     f'sw x2, 0(x1); {op} x3, {off}(x1); {ldu} x14, {nxt}(x1))'); n += 1
    L += ['', '  # Load back after 1..3 other instructions.']
    n = 50
    for k in range(1, 4):
        v = [0x12345678, 0x9abcdef0, 0x0f1e2d3c][k - 1] & ((1 << (8 * w)) - 1)
        off = (k * w) % 8
        L.append(f'  TEST_ST_LD_GAP({n}, {k}, {ldu}, {op}, {h(v)}, {off}, isa_st_data)'); n += 1
    L += ['', '  # Negative and extreme offsets.']
    n = 60
    v = 0x5aa5c33c & ((1 << (8 * w)) - 1)
    L.append(f'  TEST_ST_OP({n}, {ldu}, {op}, {h(v)}, -{w}, isa_st_data + 16)'); n += 1
    L.append(f'  TEST_ST_OP({n}, {ldu}, {op}, {h(v ^ 1)}, -16, isa_st_data + 16)'); n += 1
    L.append(f'  TEST_ST_OP({n}, {ldu}, {op}, {h(v ^ 2)}, 2047 - {2047 % w}, isa_st_data + {w} - (2047 - {2047 % w}))'); n += 1
    L.append(f'  TEST_ST_OP({n}, {ldu}, {op}, {h(v ^ 3)}, -2048, isa_st_data + 2048)'); n += 1
    L += ['', '  # Store data and base produced 1..3 instructions before the store.']
    n = 70
    for n1, n2 in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)):
        v = (0xa0b0c0d0 + n1 * 0x0101 + n2 * 0x100100) & ((1 << (8 * w)) - 1)
        L.append(f'  TEST_ST_SRC12_BYPASS({n}, {n1}, {n2}, {ldu}, {op}, {h(v)}, {w * (n % 4)}, isa_st_data)'); n += 1
    for n1, n2 in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)):
        v = (0x0d0c0b0a + n1 * 0x0101 + n2 * 0x100100) & ((1 << (8 * w)) - 1)
        L.append(f'  TEST_ST_SRC21_BYPASS({n}, {n1}, {n2}, {ldu}, {op}, {h(v)}, {w * (n % 4)}, isa_st_data)'); n += 1
    L += ['  # The stored value produced by a load right before the store.']
    L.append(f'  TEST_CASE({n}, x14, 0x000000ef, la x1, isa_st_const; la x5, isa_st_data; lbu x2, 0(x1); {op} x2, 0(x5); {ldu} x14, 0(x5))'); n += 1
    L += ['', '  # x0 as store data writes zeros.']
    n = 90
    L.append(f'  TEST_CASE({n}, x14, 0, la x1, isa_st_data; li x2, -1; sw x2, 8(x1); {op} x0, 8(x1); {ldu} x14, 8(x1))'); n += 1
    L += ['', '  # A load from another address right after a store reads that address, not the store data',
          '  # (also when the addresses differ only in bit 10);',
          '  # two stores to one address back to back: the younger wins.']
    n = 100
    L.append(f'  TEST_CASE({n}, x14, 0x5a5a5aef, la x1, isa_st_data; la x5, isa_st_const; li x2, -1; {op} x2, 0(x1); lw x14, 0(x5))'); n += 1
    L.append(f'  TEST_CASE({n}, x14, 0x5a5a5aef, la x1, isa_st_data; li x2, -1; {op} x2, 0(x1); lw x14, 1024(x1))'); n += 1
    v1, v2 = 0x1111 & ((1 << (8 * w)) - 1), 0x2222 & ((1 << (8 * w)) - 1)
    L.append(f'  TEST_CASE({n}, x14, {h(v2)}, la x1, isa_st_data; li x2, {h(v1)}; li x3, {h(v2)}; {op} x2, 4(x1); {op} x3, 4(x1); {ldu} x14, 4(x1))'); n += 1
    L.append('TEST_CODE_END')
    L += ['', 'TEST_DATA_BEGIN', '  .balign 16', 'isa_st_data: .fill 256, 4, 0',
          '  # 1024 bytes past isa_st_data: a word that no store touches.',
          'isa_st_far: .word 0x5a5a5aef', 'isa_st_const: .word 0x5a5a5aef', 'TEST_DATA_END']
    return '\n'.join(L) + '\n'

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for op in ('lb', 'lh', 'lw', 'lbu', 'lhu'):
    open(os.path.join(out, f'{op}.S'), 'w').write(gen_load(op))
for op in ('sb', 'sh', 'sw'):
    open(os.path.join(out, f'{op}.S'), 'w').write(gen_store(op))
