#!/usr/bin/env python3
"""Where a running process's resident memory is (issue 27, BENCHMARKS.md "Resident memory while running").

    python3 Benchmarks/resident-pages.py PID [NM_FILE]

Reads /proc/PID/maps and /proc/PID/pagemap (run as root, or as the process's owner with
CAP_SYS_ADMIN, so that the page frame bits are readable; only the present bit is used) and prints
the resident MiB of each mapping, then of each ELF section of the process's executable. With
NM_FILE, the output of `nm -S --size-sort` on the unstripped executable, it also attributes each
resident page of the executable to the module of the symbol covering most of it (Swift symbols by
their mangled module name; ICU, CoreFoundation, the Swift runtime and Dispatch by name).
"""
import bisect
import collections
import os
import re
import struct
import subprocess
import sys

PAGE = 4096


def mappings(pid):
    for line in open(f"/proc/{pid}/maps"):
        parts = line.split()
        low, high = (int(x, 16) for x in parts[0].split("-"))
        yield low, high, int(parts[2], 16), parts[1], parts[5] if len(parts) > 5 else "[anon]"


def present_pages(pagemap, low, high):
    pagemap.seek(low // PAGE * 8)
    data = pagemap.read((high - low) // PAGE * 8)
    for index in range(len(data) // 8):
        (entry,) = struct.unpack_from("<Q", data, index * 8)
        if entry >> 63 & 1:
            yield index


def sections(executable):
    text = subprocess.run(["readelf", "-SW", executable], capture_output=True, text=True, check=True).stdout
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("[") or "]" not in line:
            continue
        fields = line[line.index("]") + 1:].split()
        if len(fields) < 5 or fields[0] == "Name" or fields[1] == "NOBITS":
            continue
        found.append((int(fields[3], 16), int(fields[4], 16), fields[0]))
    return found


def module(name):
    if name.startswith("icudt"):
        return "ICU data"
    if name.startswith(("$ss", "$sS")):
        return "standard library specializations"
    match = re.match(r"^\$s(\d+)([A-Za-z_][A-Za-z0-9_]*)", name)
    if match:
        return match.group(2)[: int(match.group(1))]
    if "icu_" in name or name.startswith("swift_u"):
        return "ICU code"
    if name.startswith(("CF", "_CF", "__CF")):
        return "CoreFoundation"
    if name.startswith(("swift_", "_ZN5swift")):
        return "Swift runtime"
    if name.startswith(("_dispatch", "dispatch_")):
        return "Dispatch"
    return "other C/C++"


def main():
    pid = int(sys.argv[1])
    executable = os.readlink(f"/proc/{pid}/exe")
    symbols = []
    if len(sys.argv) > 2:
        for line in open(sys.argv[2]):
            parts = line.split()
            if len(parts) >= 4:
                symbols.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
        symbols.sort()
    starts = [symbol[0] for symbol in symbols]
    by_mapping, by_section, by_module = collections.Counter(), collections.Counter(), collections.Counter()
    section_list = sections(executable)
    load_bias = None
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for low, high, offset, permissions, path in mappings(pid):
            if path == "[vsyscall]":
                continue
            if path == executable and load_bias is None:
                load_bias = low - offset
            for index in present_pages(pagemap, low, high):
                by_mapping[(path, permissions)] += 1
                if path != executable:
                    continue
                file_offset = offset + index * PAGE
                names = [name for start, size, name in section_list if start < file_offset + PAGE and file_offset < start + size]
                by_section["+".join(names[:2]) or "(headers)"] += 1
                if symbols:
                    address = low + index * PAGE - load_bias
                    overlap = collections.Counter()
                    position = bisect.bisect_right(starts, address + PAGE) - 1
                    while position >= 0 and symbols[position][0] > address - (1 << 20):
                        start, size, name = symbols[position]
                        covered = min(start + size, address + PAGE) - max(start, address)
                        if covered > 0:
                            overlap[module(name)] += covered
                        position -= 1
                    by_module[overlap.most_common(1)[0][0] if overlap else "(no symbol: metadata, tables)"] += 1
    for title, counter in (("mapping", by_mapping), ("section of the executable", by_section), ("module", by_module)):
        if not counter:
            continue
        print(f"resident MiB by {title}:")
        for key, pages in counter.most_common(20):
            label = " ".join(key) if isinstance(key, tuple) else key
            print(f"  {pages * PAGE / 1048576:7.2f}  {label}")


if __name__ == "__main__":
    main()
