#!/usr/bin/env python3
"""scripts/gtkwave_symbols.py on a real firmware image: the PC filter names functions at their addresses, the
instruction filter gives objdump's mnemonic for every word (PC-relative targets as the right offset), the save
file it writes points its PC and instruction traces at filter files that exist, and every PC and instruction the
core executes in a recorded waveform is translated (the filter's values are written as GTKWave shows them).

usage: gtkwave_symbols_test.py SCRIPT ELF STRATA_SIM WORKDIR [--prefix riscv64-unknown-elf-]"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vcd_scan  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def read_filter(path):
    m = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            value, text = line.rstrip("\n").split(" ", 1)
            check(re.fullmatch(r"[0-9A-F]{8}", value) is not None, f"{path}: value {value!r} is not 8 hex digits")
            m[int(value, 16)] = text
    return m


def main():
    script, elf, sim, work = sys.argv[1:5]
    prefix = sys.argv[6] if len(sys.argv) > 6 and sys.argv[5] == "--prefix" else "riscv64-unknown-elf-"
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "core-symbols.gtkw")
    wave = os.path.join(work, "core.fst")
    subprocess.run([sys.executable, script, elf, "-o", out, "--wave", wave, "--tool-prefix", prefix], check=True)
    pcs = read_filter(os.path.join(work, "core-symbols.pc.txt"))
    words = read_filter(os.path.join(work, "core-symbols.instr.txt"))

    # Demangled names, shortened: no arguments, qualifiers, clones or anonymous namespaces.
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    import gtkwave_symbols  # noqa: E402
    for full, short in (("(anonymous namespace)::OnTimer(strata::arch::TrapFrame*)", "OnTimer"),
                        ("strata::A<unsigned short, int>::Plan(A::Window const&, unsigned long) const",
                         "strata::A<unsigned short,int>::Plan"),
                        ("foo(int) [clone .isra.0]", "foo"), ("main", "main")):
        check(gtkwave_symbols.short_name(full) == short, f"{full!r} -> {gtkwave_symbols.short_name(full)!r}")

    # Symbols: main and the trap entry at their nm addresses, and an offset inside main.
    nm = subprocess.run([prefix + "nm", elf], check=True, capture_output=True, text=True).stdout
    addr = {l.split()[2]: int(l.split()[0], 16) for l in nm.splitlines() if len(l.split()) == 3}
    for name in ("main", "_start", "strata_trap_entry"):
        check(pcs.get(addr[name]) == name, f"{name} at {addr[name]:08x} reads {pcs.get(addr[name])!r}")
    check(pcs.get(addr["main"] + 8) == "main+0x8", f"main+8 reads {pcs.get(addr['main'] + 8)!r}")

    # Instructions: every word objdump decodes has objdump's mnemonic; branches and jal show target - address.
    dump = subprocess.run([prefix + "objdump", "-d", elf], check=True, capture_output=True, text=True).stdout
    line_re = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(\S+)\s*(.*)$")
    n = branches = 0
    for line in dump.splitlines():
        m = line_re.match(line)
        if not m:
            continue
        address, word, mnemonic, operands = int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)
        text = words.get(word, "")
        n += 1
        check(text.split(" ")[0] == mnemonic, f"{word:08x} at {address:08x}: {text!r}, objdump says {mnemonic}")
        if mnemonic in ("j", "jal", "beq", "bne", "bltu", "bgeu", "beqz", "bnez", "blt", "bge") and \
                re.search(r"([0-9a-f]+) <", operands):
            target = int(re.search(r"([0-9a-f]+) <", operands).group(1), 16)
            off = target - address
            want = f"pc{'+' if off >= 0 else '-'}0x{abs(off):x}"
            check(text.endswith(want), f"{word:08x} at {address:08x}: {text!r} should end in {want}")
            branches += 1
        check("#" not in text and "<" not in text, f"{word:08x}: {text!r} keeps an address-dependent comment")
    check(n > 100 and branches > 10, f"only {n} instructions, {branches} branches checked")

    # The save file: filtered traces carry the translate flag and a filter file that exists.
    filtered = {}
    flags = 0
    pending = None
    with open(out) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("@"):
                flags = int(line[1:], 16)
            elif line.startswith("^"):
                pending = line.split(" ", 1)[1]
                check(os.path.isfile(pending), f"{out}: filter file {pending} does not exist")
            elif line.startswith("strata.") or line.startswith("+{"):
                if pending:
                    check(flags & 0x2000, f"{out}: {line} has a filter but flags @{flags:x}")
                    filtered[line.split()[-1]] = pending
                pending = None
    core = "strata.tpu_top.u_core."
    for sig, kind in (("fetch_pc_q[31:0]", ".pc.txt"), ("ex_q.pc[31:0]", ".pc.txt"), ("ibus_addr_o[31:0]", ".pc.txt"),
                      ("ex_q.instr[31:0]", ".instr.txt")):
        check(filtered.get(core + sig, "").endswith(kind), f"{out}: {sig} filter {filtered.get(core + sig)!r}")

    # A real run: every PC and instruction word the core commits is in the filters.
    subprocess.run([sim, "--quiet", "--trace", wave, "--trace-end", "20000", elf], check=False,
                   stdout=subprocess.DEVNULL)
    names = [core + "ex_valid_q", core + "ex_q.pc", core + "ex_q.instr"]
    seen_pcs, seen_words = set(), set()
    for _, v in vcd_scan.scan(wave, names):
        if v[names[0]] == 1:
            seen_pcs.add(v[names[1]])
            seen_words.add(v[names[2]])
    check(len(seen_pcs) > 50, f"the waveform shows only {len(seen_pcs)} PCs in EX")
    for pc in sorted(seen_pcs):
        check(pc in pcs, f"PC {pc:08x} in the waveform has no symbol")
    for w in sorted(seen_words):
        check(w in words, f"instruction {w:08x} in the waveform is not translated")
    check(any(pcs.get(pc, "").startswith("main") for pc in seen_pcs), "the waveform never shows main")
    print(f"{n} instructions, {branches} branches, {len(seen_pcs)} PCs and {len(seen_words)} words from the "
          f"waveform checked; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
