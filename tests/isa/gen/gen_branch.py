#!/usr/bin/env python3
"""Emit tests/isa/{beq,bne,blt,bge,bltu,bgeu}.S; taken/not-taken comes from the ISA definition."""
import sys, os
M = 0xffffffff
def s32(x): x &= M; return x - (1 << 32) if x & 0x80000000 else x
def u32(x): return x & M
COND = {
  'beq':  (lambda a, b: u32(a) == u32(b), 'branch if rs1 == rs2'),
  'bne':  (lambda a, b: u32(a) != u32(b), 'branch if rs1 != rs2'),
  'blt':  (lambda a, b: s32(a) < s32(b), 'branch if rs1 < rs2, signed'),
  'bge':  (lambda a, b: s32(a) >= s32(b), 'branch if rs1 >= rs2, signed'),
  'bltu': (lambda a, b: u32(a) < u32(b), 'branch if rs1 < rs2, unsigned'),
  'bgeu': (lambda a, b: u32(a) >= u32(b), 'branch if rs1 >= rs2, unsigned'),
}
PAIRS = [(0, 0), (1, 1), (M, M), (0, 1), (1, 0), (M, 1), (1, M), (0xfffffffe, M), (M, 0xfffffffe),
         (0x7fffffff, 0x80000000), (0x80000000, 0x7fffffff), (0x80000000, 0x80000000),
         (0x7fffffff, 0x7fffffff), (M, 0), (0, M), (0x12345678, 0x12345679), (0x80000001, 0x00000001),
         (0x00000001, 0x80000001)]
def h(x): return f'0x{u32(x):08x}'

def gen(op):
    f, desc = COND[op]
    L = [f'# {op}: {desc}. Forward and backward, taken and not taken; instructions in the',
         '# shadow of a taken branch must be squashed; x0 and rs1 == rs2 operands; operands',
         '# forwarded into the branch; a far (~4 KiB) offset.',
         '#include "isa_macros.h"', '', 'TEST_CODE_BEGIN', '  # Values: taken forward+backward, or not taken forward+backward.']
    n = 2
    for a, b in PAIRS:
        m = 'TEST_BR2_OP_TAKEN' if f(a, b) else 'TEST_BR2_OP_NOTTAKEN'
        L.append(f'  {m}({n}, {op}, {h(a)}, {h(b)})'); n += 1
    L += ['', '  # x0 operands (x1 = val1, x2 = val2) and the same register twice.']
    n = 30
    for rs1, rs2, v1, v2 in [('x0', 'x0', 5, 5), ('x1', 'x0', 0, 7), ('x1', 'x0', 1, 7), ('x1', 'x0', M, 7),
                             ('x0', 'x2', 7, 0), ('x0', 'x2', 7, 1), ('x0', 'x2', 7, M), ('x1', 'x1', 0x80000000, 3),
                             ('x2', 'x2', 3, M)]:
        a = 0 if rs1 == 'x0' else (v1 if rs1 == 'x1' else v2)
        b = 0 if rs2 == 'x0' else (v1 if rs2 == 'x1' else v2)
        L.append(f'  TEST_BR_REGS({n}, {op}, {int(f(a, b))}, {rs1}, {rs2}, {h(v1)}, {h(v2)})'); n += 1
    L += ['', '  # Operands produced 1..3 instructions before the branch.']
    n = 50
    ta = [(a, b) for a, b in PAIRS if f(a, b)][-1]
    nt = [(a, b) for a, b in PAIRS if not f(a, b)][-1]
    for a, b in (ta, nt):
        for n1, n2 in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)):
            L.append(f'  TEST_BR2_SRC12_BYPASS({n}, {n1}, {n2}, {op}, {int(f(a, b))}, {h(a)}, {h(b)})'); n += 1
        for n1, n2 in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)):
            L.append(f'  TEST_BR2_SRC21_BYPASS({n}, {n1}, {n2}, {op}, {int(f(a, b))}, {h(a)}, {h(b)})'); n += 1
    L += ['', '  # Far offsets (bit 11 and up, near the +-4 KiB limit), both directions.']
    L.append(f'  TEST_BR2_FAR_TAKEN(80, {op}, {h(ta[0])}, {h(ta[1])})')
    L += ['', '  # The pc after a taken branch and after a not-taken backward branch.']
    L.append(f'  TEST_BR2_TAKEN_PC(81, {op}, {h(ta[0])}, {h(ta[1])})')
    L.append(f'  TEST_BR2_BACK_NOTTAKEN_PC(82, {op}, {h(nt[0])}, {h(nt[1])})')
    L.append('TEST_CODE_END')
    return '\n'.join(L) + '\n'

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for op in COND:
    open(os.path.join(out, f'{op}.S'), 'w').write(gen(op))
