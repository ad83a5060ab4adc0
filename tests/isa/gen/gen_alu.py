#!/usr/bin/env python3
"""Emit tests/isa/<inst>.S for the register and immediate ALU and M-extension instructions.
Expected values come from the reference semantics below (independent of any core)."""
import sys, os
M = 0xffffffff
def s32(x): x &= M; return x - (1 << 32) if x & 0x80000000 else x
def u32(x): return x & M

def div_s(a, b):
    a, b = s32(a), s32(b)
    if b == 0: return M
    if a == -2**31 and b == -1: return 0x80000000
    q = abs(a) // abs(b)
    return u32(-q if (a < 0) != (b < 0) else q)
def rem_s(a, b):
    a, b = s32(a), s32(b)
    if b == 0: return u32(a)
    if a == -2**31 and b == -1: return 0
    r = abs(a) % abs(b)
    return u32(-r if a < 0 else r)
def divu(a, b): a, b = u32(a), u32(b); return M if b == 0 else a // b
def remu(a, b): a, b = u32(a), u32(b); return a if b == 0 else a % b

OPS = {
  'add':  lambda a, b: u32(a + b),
  'sub':  lambda a, b: u32(a - b),
  'sll':  lambda a, b: u32(a << (b & 31)),
  'srl':  lambda a, b: u32(a) >> (b & 31),
  'sra':  lambda a, b: u32(s32(a) >> (b & 31)),
  'slt':  lambda a, b: int(s32(a) < s32(b)),
  'sltu': lambda a, b: int(u32(a) < u32(b)),
  'xor':  lambda a, b: u32(a ^ b),
  'or':   lambda a, b: u32(a | b),
  'and':  lambda a, b: u32(a & b),
  'mul':  lambda a, b: u32(s32(a) * s32(b)),
  'mulh': lambda a, b: u32((s32(a) * s32(b)) >> 32),
  'mulhsu': lambda a, b: u32((s32(a) * u32(b)) >> 32),
  'mulhu': lambda a, b: u32((u32(a) * u32(b)) >> 32),
  'div': div_s, 'divu': divu, 'rem': rem_s, 'remu': remu,
}
IMM = {  # immediate form -> register op; imm is sign-extended 12-bit (shamt for shifts)
  'addi': 'add', 'slti': 'slt', 'sltiu': 'sltu', 'xori': 'xor', 'ori': 'or', 'andi': 'and',
  'slli': 'sll', 'srli': 'srl', 'srai': 'sra',
}

DESC = {
  'add': 'rd = rs1 + rs2, wrapping (no overflow trap)',
  'sub': 'rd = rs1 - rs2, wrapping',
  'sll': 'rd = rs1 << rs2[4:0]; only the low 5 bits of rs2 count',
  'srl': 'rd = rs1 >> rs2[4:0] (logical); only the low 5 bits of rs2 count',
  'sra': 'rd = rs1 >> rs2[4:0] (arithmetic, sign bit replicated); only the low 5 bits of rs2 count',
  'slt': 'rd = (signed) rs1 < rs2',
  'sltu': 'rd = (unsigned) rs1 < rs2; sltu rd, x0, rs2 is snez',
  'xor': 'rd = rs1 ^ rs2', 'or': 'rd = rs1 | rs2', 'and': 'rd = rs1 & rs2',
  'mul': 'rd = low 32 bits of rs1 * rs2 (same for signed and unsigned)',
  'mulh': 'rd = high 32 bits of signed(rs1) * signed(rs2), all sign combinations',
  'mulhsu': 'rd = high 32 bits of signed(rs1) * unsigned(rs2)',
  'mulhu': 'rd = high 32 bits of unsigned(rs1) * unsigned(rs2)',
  'div': 'signed division rounding toward zero; x/0 = -1; -2^31/-1 = -2^31 (no trap)',
  'divu': 'unsigned division; x/0 = 2^32-1',
  'rem': 'signed remainder, sign of the dividend; x%0 = x; -2^31%-1 = 0',
  'remu': 'unsigned remainder; x%0 = x',
  'addi': 'rd = rs1 + sext(imm12)', 'slti': 'rd = (signed) rs1 < sext(imm12)',
  'sltiu': 'rd = (unsigned) rs1 < sext(imm12) (the immediate is sign-extended, then compared unsigned); sltiu rd, rs, 1 is seqz',
  'xori': 'rd = rs1 ^ sext(imm12); xori rd, rs, -1 is not',
  'ori': 'rd = rs1 | sext(imm12)', 'andi': 'rd = rs1 & sext(imm12)',
  'slli': 'rd = rs1 << shamt (0..31)', 'srli': 'rd = rs1 >> shamt, logical',
  'srai': 'rd = rs1 >> shamt, arithmetic',
}

ARITH_VALS = [0, 1, 2, 3, 7, 0x7fff, 0x8000, 0xffff8000, 0x7fffffff, 0x80000000, 0x80000001,
              0xffffffff, 0xfffffffe, 0x12345678, 0xfedcba98, 0x00ff00ff, 0x0f0f0f0f]

def pairs_for(op):
    P = []
    if op in ('add', 'sub'):
        P = [(0,0),(1,1),(3,7),(0,0xffff8000),(0x80000000,0),(0x80000000,0xffff8000),(0,0x7fff),
             (0x7fffffff,0),(0x7fffffff,0x7fff),(0x80000000,0x7fff),(0x7fffffff,0xffff8000),
             (0,0xffffffff),(0xffffffff,1),(0xffffffff,0xffffffff),(1,0x7fffffff),(0x80000000,0x80000000),
             (0x80000000,1),(0x7fffffff,0xffffffff),(0x12345678,0x0fedcba9),(5,7)]
    elif op in ('sll', 'srl', 'sra'):
        for v in (0x00000001, 0xffffffff, 0x80000000, 0x21212121, 0x7fffffff, 0x80000001):
            for sh in (0, 1, 7, 14, 20, 31):
                P.append((v, sh))
        # only rs2[4:0] is used
        for v in (0x21212121, 0x80000001):
            for sh in (32, 33, 0xffffffc0, 0xffffffc1, 0xffffffe7, 0xffffffee, 0xffffffff, 0x7fffffe4, 0x80000005):
                P.append((v, sh))
    elif op in ('slt', 'sltu'):
        P = [(0,0),(1,1),(3,7),(7,3),(0,0xffff8000),(0x80000000,0),(0x80000000,0xffff8000),(0,0x7fff),
             (0x7fffffff,0),(0x7fffffff,0x7fff),(0x80000000,0x7fff),(0x7fffffff,0xffff8000),
             (0,0xffffffff),(0xffffffff,1),(1,0xffffffff),(0xffffffff,0xffffffff),(0x80000000,0x7fffffff),
             (0x7fffffff,0x80000000),(0x80000000,0x80000001),(0xfffffffe,0xffffffff),(0xffffffff,0xfffffffe)]
    elif op in ('xor', 'or', 'and'):
        P = [(0xff00ff00,0x0f0f0f0f),(0x0ff00ff0,0xf0f0f0f0),(0x00ff00ff,0x0f0f0f0f),(0xf00ff00f,0xf0f0f0f0),
             (0,0),(0xffffffff,0),(0,0xffffffff),(0xffffffff,0xffffffff),(0x80000000,0x00000001),(0x12345678,0xffffffff)]
    elif op == 'mul':
        P = [(0,0),(1,1),(3,7),(0,0xffff8000),(0x80000000,0),(0x80000000,0xffff8000),(0xaaaaaaab,0x0002fe7d),
             (0x0002fe7d,0xaaaaaaab),(0xff000000,0xff000000),(0xffffffff,0xffffffff),(0xffffffff,1),(1,0xffffffff),
             (0x80000000,0xffffffff),(0x80000000,0x80000000),(0x7fffffff,0x7fffffff),(0x7fffffff,0xffffffff),
             (0x12345678,0x9abcdef0),(0x0000ffff,0x0000ffff),(0x00010000,0x00010000),(0xfffffff9,3)]
    elif op in ('mulh', 'mulhsu', 'mulhu'):
        P = [(0,0),(1,1),(3,7),(0,0xffff8000),(0x80000000,0),(0x80000000,0xffff8000),(0xaaaaaaab,0x0002fe7d),
             (0x0002fe7d,0xaaaaaaab),(0xff000000,0xff000000),(0xffffffff,0xffffffff),(0xffffffff,1),(1,0xffffffff),
             (0x80000000,0xffffffff),(0xffffffff,0x80000000),(0x80000000,0x80000000),(0x7fffffff,0x7fffffff),
             (0x7fffffff,0x80000000),(0x80000000,0x7fffffff),(0x7fffffff,0xffffffff),(0xffffffff,0x7fffffff),
             (0x12345678,0x9abcdef0),(0x9abcdef0,0x12345678),(0xfffffff9,3),(3,0xfffffff9),
             (0x00010000,0x00010000),(0xffff0000,0x00010000),(0x00010000,0xffff0000),(0xffff0000,0xffff0000)]
    elif op in ('div', 'rem', 'divu', 'remu'):
        P = [(20,6),(0xffffffec,6),(20,0xfffffffa),(0xffffffec,0xfffffffa),(7,2),(0xfffffff9,2),(7,0xfffffffe),
             (0xfffffff9,0xfffffffe),(0x80000000,1),(0x80000000,0xffffffff),(0x80000000,0x80000000),
             (0x7fffffff,0xffffffff),(0x7fffffff,0x80000000),(0,1),(0,0xffffffff),(1,0xffffffff),(5,5),(3,5),
             (0xffffffff,0xffffffff),(0xffffffff,1),(0xffffffff,2),(0x12345678,0x1234),(0x80000001,0x10),
             (1,0),(0,0),(0xffffffff,0),(0x80000000,0),(0x7fffffff,0),(0x12345678,0)]
    return P

def imm_pairs_for(op):
    if op in ('slli', 'srli', 'srai'):
        P = []
        for v in (0x00000001, 0xffffffff, 0x80000000, 0x21212121, 0x7fffffff, 0x80000001):
            for sh in (0, 1, 7, 14, 20, 31):
                P.append((v, sh))
        return P
    if op == 'addi':
        return [(0,0),(1,1),(3,7),(0,-2048),(0x80000000,0),(0x80000000,-2048),(0,2047),(0x7fffffff,0),
                (0x7fffffff,2047),(0x80000000,2047),(0x7fffffff,-2048),(0,-1),(0xffffffff,1),(0xffffffff,-1),
                (0x7fffffff,1),(0x80000000,-1),(0x12345678,-0x678),(0xfffff800,-2048),(5,-5)]
    if op in ('slti', 'sltiu'):
        return [(0,0),(1,1),(3,7),(7,3),(0,-2048),(0x80000000,0),(0x80000000,-2048),(0,2047),(0x7fffffff,0),
                (0x7fffffff,2047),(0x80000000,2047),(0x7fffffff,-2048),(0,-1),(0xffffffff,1),(0xffffffff,-1),
                (0xfffffffe,-1),(0xfffff7ff,-2048),(0xfffff800,-2048),(0xfffff801,-2048),(0x7ff,2047),(0x800,2047),
                (0,1),(1,1),(2,1)]
    return [(0x00ff0f00,-241),(0x0ff00ff0,0x0f0),(0x00ff08ff,0x70f),(0xf00ff00f,0x0f0),(0xff00ff00,0x70f),
            (0xff00ff00,-241),(0,-1),(0x12345678,-1),(0x12345678,0),(0xffffffff,0),(0xffffffff,-2048),
            (0x00000000,-2048),(0x12345678,2047),(0xfffff000,0x7ff),(0x80000000,-2048),(0xaaaaaaaa,0x555)]

def h(x): return f'0x{u32(x):08x}'
def imm(x): return str(x)

def gen_rr(op):
    f = OPS[op]
    L = [f'# {op}: {DESC[op]}.', '#include "isa_macros.h"', '', 'TEST_CODE_BEGIN',
         '  # Values (edge operands; expected results from the ISA definition).']
    n = 2
    for a, b in pairs_for(op):
        L.append(f'  TEST_RR_OP({n}, {op}, {h(f(a, b))}, {h(a)}, {h(b)})'); n += 1
    n = max(n, 60) if n < 60 else n + 1
    a, b = (13, 11) if op not in ('sll', 'srl', 'sra') else (0x80000001, 7)
    if op in ('div', 'divu', 'rem', 'remu'): a, b = (0x7ffffff3, 11)
    if op in ('slt', 'sltu'): a, b = (3, 13)
    if op in ('mul', 'mulh', 'mulhsu', 'mulhu'): a, b = (0xfffffff3, 0x7000000b)
    L.append('')
    L.append('  # rd equal to a source.')
    L.append(f'  TEST_RR_SRC1_EQ_DEST({n}, {op}, {h(f(a, b))}, {h(a)}, {h(b)})'); n += 1
    L.append(f'  TEST_RR_SRC2_EQ_DEST({n}, {op}, {h(f(a + 1, b))}, {h(a + 1)}, {h(b)})'); n += 1
    L.append(f'  TEST_RR_SRC12_EQ_DEST({n}, {op}, {h(f(a, a))}, {h(a)})'); n += 1
    L.append('')
    L.append('  # Forwarding: result used 1..4 instructions later; operands produced 1..3 instructions before.')
    for k in range(4):
        L.append(f'  TEST_RR_DEST_BYPASS({n}, {k}, {op}, {h(f(a + k, b))}, {h(a + k)}, {h(b)})'); n += 1
    for n1, n2 in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)):
        L.append(f'  TEST_RR_SRC12_BYPASS({n}, {n1}, {n2}, {op}, {h(f(a + n1, b + n2))}, {h(a + n1)}, {h(b + n2)})'); n += 1
    for n1, n2 in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)):
        L.append(f'  TEST_RR_SRC21_BYPASS({n}, {n1}, {n2}, {op}, {h(f(a - n1, b + n2))}, {h(a - n1)}, {h(b + n2)})'); n += 1
    L.append('')
    L.append('  # x0 as a source reads 0; as rd it stays 0 and nothing is forwarded from it.')
    v = 0x80000015 if op not in ('sll', 'srl', 'sra') else 0x0000000f
    L.append(f'  TEST_RR_ZEROSRC1({n}, {op}, {h(f(0, v))}, {h(v)})'); n += 1
    v2 = 0xfffffff0 if op not in ('sll', 'srl', 'sra') else 0x80000020
    L.append(f'  TEST_RR_ZEROSRC2({n}, {op}, {h(f(v2, 0))}, {h(v2)})'); n += 1
    L.append(f'  TEST_RR_ZEROSRC12({n}, {op}, {h(f(0, 0))})'); n += 1
    L.append(f'  TEST_RR_ZERODEST({n}, {op}, 0x00000010, 0x0000001e)'); n += 1
    L.append(f'  TEST_RR_ZERODEST({n}, {op}, 0x80000000, 0xffffffff)'); n += 1
    assert n <= 254
    L.append('TEST_CODE_END')
    return '\n'.join(L) + '\n'

def gen_imm(op):
    f = OPS[IMM[op]]
    shift = op in ('slli', 'srli', 'srai')
    L = [f'# {op}: {DESC[op]}.', '#include "isa_macros.h"', '', 'TEST_CODE_BEGIN',
         '  # Values (edge operands and immediates; expected results from the ISA definition).']
    n = 2
    for a, i in imm_pairs_for(op):
        L.append(f'  TEST_IMM_OP({n}, {op}, {h(f(a, i))}, {h(a)}, {imm(i)})'); n += 1
    n = 60 if n < 60 else n + 1
    a, i = (0x80000001, 7) if shift else (13, 11)
    if op in ('slti', 'sltiu'): a, i = (3, 11)
    L.append('')
    L.append('  # rd == rs1, forwarding distances 1..4, x0 as source and destination.')
    L.append(f'  TEST_IMM_SRC1_EQ_DEST({n}, {op}, {h(f(a, i))}, {h(a)}, {i})'); n += 1
    for k in range(4):
        L.append(f'  TEST_IMM_DEST_BYPASS({n}, {k}, {op}, {h(f(a + k, i))}, {h(a + k)}, {i})'); n += 1
    for k in range(3):
        L.append(f'  TEST_IMM_SRC1_BYPASS({n}, {k}, {op}, {h(f(a + k, i + k))}, {h(a + k)}, {i + k})'); n += 1
    zi = 31 if shift else -2048
    L.append(f'  TEST_IMM_ZEROSRC1({n}, {op}, {h(f(0, zi))}, {zi})'); n += 1
    zi = 5 if shift else 2047
    L.append(f'  TEST_IMM_ZEROSRC1({n}, {op}, {h(f(0, zi))}, {zi})'); n += 1
    L.append(f'  TEST_IMM_ZERODEST({n}, {op}, 0x00000021, {31 if shift else 50})'); n += 1
    L.append(f'  TEST_IMM_ZERODEST({n}, {op}, 0xffffffff, {1 if shift else -1})'); n += 1
    L.append('TEST_CODE_END')
    return '\n'.join(L) + '\n'

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for op in OPS:
    open(os.path.join(out, f'{op}.S'), 'w').write(gen_rr(op))
for op in IMM:
    open(os.path.join(out, f'{op}.S'), 'w').write(gen_imm(op))
