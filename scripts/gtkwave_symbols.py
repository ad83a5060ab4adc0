#!/usr/bin/env python3
"""GTKWave translate filters for the control core: PCs as function+offset, instruction words as assembly.

  scripts/gtkwave_symbols.py FIRMWARE.elf -o out/core-symbols.gtkw [--gtkw rtl/tpu_core.gtkw] [--wave out/strata.fst]
  gtkwave out/core-symbols.gtkw

Writes two GTKWave translate filter files beside OUT (OUT's stem + .pc.txt and .instr.txt) and OUT, a copy
of the save file whose PC traces (fetch_pc_q, ex_q.pc, ibus_addr_o, ex_target, mepc_q) and instruction traces
(ex_q.instr, ibus_rdata_i) use them. With -o DIR/ (a directory) only the two filter files are written.

Why translate filter *files* (`^1 FILE` in a save file) and not a process filter (`^>1 PROGRAM`): the firmware
is fixed for a run, so every value worth naming is known in advance (one line per instruction address and per
distinct instruction word: a few thousand lines); GTKWave reads the file once, needs no helper process per
trace, and a save file that names files works for anyone who has them (no program path or Python to run).
A value not in the file (a PC outside the code, a data word on the bus) stays plain hex.

Filter file format (GTKWave manual, "Translate Filter File"): one `VALUE TEXT` line per value, VALUE exactly as
GTKWave prints it (hex: 8 digits for a 32-bit trace; compared case-insensitively), TEXT the rest of the line.

PC-relative instructions (branches, jal) are shown with their offset (`beq a0,a1,pc+0x10`), not objdump's
absolute target: one word is the same instruction at every address, so the word -> text map must not depend on
where the word sits. objdump's `# address <symbol>` comments depend on the previous instruction and are dropped.
Names are demangled, without argument lists or `(anonymous namespace)::`.

Needs the RISC-V binutils (riscv64-unknown-elf-objdump, -nm; another prefix with --tool-prefix); stdlib only.
"""
import argparse
import bisect
import os
import re
import shutil
import subprocess
import sys

# Traces (leaf names, without the bit range) that hold an instruction address / an instruction word.
PC_SIGNALS = ("fetch_pc_q", "ex_q.pc", "ibus_addr_o", "ex_target", "mepc_q")
INSTR_SIGNALS = ("ex_q.instr", "ibus_rdata_i")
# objdump mnemonics whose last operand is a PC-relative target (printed as an absolute address).
PC_RELATIVE = {
    "j", "jal", "beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz", "bgtz",
    "bgt", "ble", "bgtu", "bleu",
}
TR_FTRANSLATED = 0x2000  # GTKWave trace flag: a translate filter file applies
TR_HEX_RJUSTIFY = 0x22  # hex, right-justified (the save files' @22)


def run_tool(tool, args):
    try:
        return subprocess.run([tool] + args, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit(f"gtkwave_symbols: {tool} not found (install binutils-riscv64-unknown-elf or pass --tool-prefix)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"gtkwave_symbols: {tool} {' '.join(args)} failed: {e.stderr.strip()}")


def short_name(demangled):
    """`(anonymous namespace)::OnTimer(strata::arch::TrapFrame*)` -> `OnTimer`; keeps templates and scopes."""
    name = demangled.replace("(anonymous namespace)::", "")
    name = re.sub(r"\s*\[clone [^\]]*\]", "", name)  # GCC's specialised copies: foo(int) [clone .isra.0]
    while re.search(r"\s(const|volatile|&|&&)$", name):  # member function qualifiers after the arguments
        name = re.sub(r"\s(const|volatile|&|&&)$", "", name)
    if name.endswith(")"):  # drop the argument list: the last balanced (...) group
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i] if i > 0 else name
                break
    return name.replace(", ", ",") or demangled  # template arguments without spaces; GTKWave keeps the rest


def code_symbols(elf, prefix):
    """Sorted (address, name) of the code symbols (nm types T, t, W, w), mapping symbols ($x) left out."""
    syms = []
    for line in run_tool(prefix + "nm", ["-n", "-C", "--defined-only", elf]).splitlines():
        parts = line.split(" ", 2)
        if len(parts) != 3 or parts[1] not in "TtWw" or parts[2].startswith(("$", ".L")):
            continue
        syms.append((int(parts[0], 16), short_name(parts[2])))
    return syms


def disassembly(elf, prefix):
    """(address, word, mnemonic, operands) for every instruction objdump decodes."""
    out = []
    line_re = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(\S+)\s*(.*)$")
    for line in run_tool(prefix + "objdump", ["-d", elf]).splitlines():
        m = line_re.match(line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)))
    return out


def instruction_text(address, mnemonic, operands):
    """The word's text independent of its address: comments dropped, PC-relative targets as pc+/-offset."""
    operands = operands.split("#", 1)[0].strip()
    operands = re.sub(r"\s*<[^>]*>", "", operands)
    if mnemonic in PC_RELATIVE and operands:
        ops = operands.split(",")
        try:
            offset = int(ops[-1], 16) - address
        except ValueError:
            offset = None
        if offset is not None:
            ops[-1] = f"pc{'+' if offset >= 0 else '-'}0x{abs(offset):x}"
            operands = ",".join(ops)
    return f"{mnemonic} {operands}".strip()


def build_maps(elf, prefix):
    syms = code_symbols(elf, prefix)
    insns = disassembly(elf, prefix)
    if not insns:
        sys.exit(f"gtkwave_symbols: {elf}: no instructions (not a RISC-V ELF with code?)")
    pc_map, word_map = {}, {}
    addresses = [a for a, _ in syms]
    for address, word, mnemonic, operands in insns:
        i = bisect.bisect_right(addresses, address) - 1  # the last code symbol at or below the address
        if i >= 0:
            base, name = syms[i]
            pc_map[address] = name if address == base else f"{name}+0x{address - base:x}"
        word_map.setdefault(word, instruction_text(address, mnemonic, operands))
    return pc_map, word_map


def write_filter(path, title, mapping):
    with open(path, "w") as f:
        f.write(f"# GTKWave translate filter: {title} (scripts/gtkwave_symbols.py)\n")
        for value in sorted(mapping):
            f.write(f"{value:08X} {mapping[value]}\n")


def leaf(signal_line):
    """`+{alias} strata.tpu_top.u_core.ex_q.pc[31:0]` -> `ex_q.pc` (the name after u_core./u_csr.)."""
    name = signal_line.split("}", 1)[-1].strip() if signal_line.startswith("+{") else signal_line.strip()
    name = re.sub(r"\[\d+:\d+\]$", "", name)
    return name


def matches(name, leaves):
    return any(name == l or name.endswith("." + l) for l in leaves)


def rewrite_savefile(src, dst, pc_file, instr_file, wave):
    """src with the filters on the PC and instruction traces; [dumpfile] set to wave if given."""
    out, cur, emitted, filtered = [], None, None, 0
    with open(src) as f:
        lines = f.read().splitlines()
    out.append(f"[*] Generated by scripts/gtkwave_symbols.py from {os.path.relpath(src)}: PCs as function+offset,")
    out.append("[*] instruction words as assembly (translate filter files beside this file).")
    for line in lines:
        if line.startswith("[dumpfile]") and wave:
            out.append(f'[dumpfile] "{os.path.abspath(wave)}"')
            continue
        if line.startswith("[*] Open with:"):
            continue  # the original's hint names the original
        if line.startswith("@"):
            cur = int(line[1:], 16)
            continue
        if line.startswith(("[", "*", "^")) or not line.strip():
            out.append(line)
            continue
        # A trace line: a signal, an aliased signal, a comment (-...) or a vector (#{...}).
        flags, filt = cur, None
        if not line.startswith("-"):
            name = leaf(line)
            if matches(name, PC_SIGNALS):
                filt = pc_file
            elif matches(name, INSTR_SIGNALS):
                filt = instr_file
        if filt is not None:
            flags = (cur if cur is not None else TR_HEX_RJUSTIFY) | TR_FTRANSLATED
        if flags is not None and flags != emitted:
            out.append(f"@{flags:x}")
            emitted = flags
        if filt is not None:
            out.append(f"^{1 if filt == pc_file else 2} {os.path.abspath(filt)}")
            filtered += 1
        out.append(line)
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
    return filtered


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("elf", help="the firmware ELF that ran (build/rv32/apps/NAME/NAME.elf)")
    ap.add_argument("-o", "--out", required=True,
                    help="save file to write (its filters go beside it), or a directory for the filters only")
    ap.add_argument("--gtkw", help="save file to start from (default: rtl/tpu_core.gtkw)")
    ap.add_argument("--wave", help="waveform the save file opens ([dumpfile]; default: the save file's)")
    ap.add_argument("--tool-prefix", default=os.environ.get("STRATA_RISCV_PREFIX", "riscv64-unknown-elf-"),
                    help="binutils prefix (default riscv64-unknown-elf-, or $STRATA_RISCV_PREFIX)")
    a = ap.parse_args()
    if not os.path.isfile(a.elf):
        sys.exit(f"gtkwave_symbols: no such ELF: {a.elf}")
    if shutil.which(a.tool_prefix + "objdump") is None:
        sys.exit(f"gtkwave_symbols: {a.tool_prefix}objdump not found (binutils-riscv64-unknown-elf)")
    pc_map, word_map = build_maps(a.elf, a.tool_prefix)

    filters_only = a.out.endswith("/") or os.path.isdir(a.out)
    if filters_only:
        os.makedirs(a.out, exist_ok=True)
        stem = os.path.join(a.out, os.path.splitext(os.path.basename(a.elf))[0])
    else:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        stem = os.path.splitext(a.out)[0]
    pc_file, instr_file = stem + ".pc.txt", stem + ".instr.txt"
    write_filter(pc_file, f"PC -> function+offset of {a.elf}", pc_map)
    write_filter(instr_file, f"instruction word -> assembly of {a.elf}", word_map)
    print(f"gtkwave_symbols: {pc_file} ({len(pc_map)} addresses), {instr_file} ({len(word_map)} words)",
          file=sys.stderr)
    if filters_only:
        return 0
    src = a.gtkw
    if src is None:  # the source tree's view, or an installed one (bin/ beside share/strata/gtkwave/)
        here = os.path.dirname(os.path.abspath(__file__))
        candidates = [os.path.join(here, "..", "rtl", "tpu_core.gtkw"),
                      os.path.join(here, "..", "share", "strata", "gtkwave", "tpu_core.gtkw")]
        src = next((c for c in candidates if os.path.isfile(c)), None)
        if src is None:
            sys.exit("gtkwave_symbols: no tpu_core.gtkw beside this script (rtl/ or share/strata/gtkwave/); pass --gtkw")
    elif not os.path.isfile(src):
        sys.exit(f"gtkwave_symbols: no such save file: {src}")
    n = rewrite_savefile(src, a.out, pc_file, instr_file, a.wave)
    if n == 0:
        print(f"gtkwave_symbols: warning: {src} shows no PC or instruction trace; {a.out} filters nothing",
              file=sys.stderr)
    print(f"gtkwave_symbols: {a.out} ({n} traces filtered); open it with: gtkwave {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
