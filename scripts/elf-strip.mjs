// Strips a 64-bit little-endian ELF executable (Node's Linux binaries) of what only a debugger reads: the .debug_*
// sections and the static symbol table (.symtab, .strtab) — about 18 MB of Node 24's 127. The same as `strip` would
// do, without needing binutils for the target's architecture (the x64 `strip` cannot read an arm64 file). What the
// program loads is not touched: every byte a program header maps stays where it was, sections keep their indexes
// (the dynamic symbols name sections by index), and the dropped sections must all lie past the mapped bytes.
const SHF_ALLOC = 2n;
const SHF_INFO_LINK = 0x40n;
const SHT_NOBITS = 8;
const SHT_RELA = 4;
const SHT_REL = 9;

/** The stripped copy of an ELF executable (a Buffer), or the same buffer when it has nothing to strip. */
export function stripElf(bytes) {
  if (bytes.readUInt32BE(0) !== 0x7f454c46 || bytes[4] !== 2 || bytes[5] !== 1) throw new Error('not a 64-bit little-endian ELF file');
  const phoff = Number(bytes.readBigUInt64LE(0x20));
  const shoff = Number(bytes.readBigUInt64LE(0x28));
  const [phentsize, phnum, shentsize, shnum, shstrndx] = [0x36, 0x38, 0x3a, 0x3c, 0x3e].map((at) => bytes.readUInt16LE(at));
  const sections = Array.from({ length: shnum }, (_, index) => {
    const at = shoff + index * shentsize;
    return {
      index,
      at,
      nameOffset: bytes.readUInt32LE(at),
      type: bytes.readUInt32LE(at + 4),
      flags: bytes.readBigUInt64LE(at + 8),
      offset: Number(bytes.readBigUInt64LE(at + 0x18)),
      size: Number(bytes.readBigUInt64LE(at + 0x20)),
      link: bytes.readUInt32LE(at + 0x28),
      info: bytes.readUInt32LE(at + 0x2c),
      align: Number(bytes.readBigUInt64LE(at + 0x30)) || 1,
    };
  });
  const names = sections[shstrndx];
  for (const section of sections) {
    const start = names.offset + section.nameOffset;
    section.name = bytes.toString('latin1', start, bytes.indexOf(0, start));
  }
  const dropped = sections.filter((s) => !(s.flags & SHF_ALLOC) && (s.name.startsWith('.debug_') || s.name === '.symtab' || s.name === '.strtab'));
  if (!dropped.length) return bytes;
  const isDropped = new Set(dropped.map((s) => s.index));
  const kept = sections.filter((s) => !isDropped.has(s.index));
  const filed = (s) => s.type !== SHT_NOBITS && s.size > 0;
  // Where the file is cut: everything from the first dropped section on is rewritten.
  const cut = Math.min(...dropped.filter(filed).map((s) => s.offset));
  const refuse = (why) => {
    throw new Error(`cannot strip this ELF file safely: ${why}`);
  };
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    const end = Number(bytes.readBigUInt64LE(at + 8)) + Number(bytes.readBigUInt64LE(at + 0x20));
    if (Number(bytes.readBigUInt64LE(at + 0x20)) > 0 && end > cut) refuse('a program header maps bytes past the sections to drop');
  }
  const firstDropped = Math.min(...isDropped);
  if (kept.some((s) => s.index > firstDropped && s.flags & SHF_ALLOC)) refuse('a loaded section comes after a dropped one (its index would change)');
  const linksInfo = (s) => s.type === SHT_REL || s.type === SHT_RELA || Boolean(s.flags & SHF_INFO_LINK);
  if (kept.some((s) => isDropped.has(s.link) || (linksInfo(s) && isDropped.has(s.info)))) refuse('a kept section refers to a dropped one');
  const newIndex = (index) => index - dropped.filter((s) => s.index < index).length;

  // The kept sections past the cut (the section names) move up behind it; then the new section header table.
  const parts = [bytes.subarray(0, cut)];
  let length = cut;
  const moved = new Map();
  for (const section of kept.filter((s) => filed(s) && s.offset >= cut)) {
    const padding = (section.align - (length % section.align)) % section.align;
    parts.push(Buffer.alloc(padding), bytes.subarray(section.offset, section.offset + section.size));
    moved.set(section.index, length + padding);
    length += padding + section.size;
  }
  const tablePadding = (8 - (length % 8)) % 8;
  const table = Buffer.alloc(kept.length * shentsize);
  kept.forEach((section, i) => {
    const entry = table.subarray(i * shentsize, (i + 1) * shentsize);
    bytes.copy(entry, 0, section.at, section.at + shentsize);
    if (moved.has(section.index)) entry.writeBigUInt64LE(BigInt(moved.get(section.index)), 0x18);
    else if (!filed(section) && section.offset >= cut) entry.writeBigUInt64LE(BigInt(cut), 0x18);
    entry.writeUInt32LE(newIndex(section.link), 0x28);
    if (linksInfo(section)) entry.writeUInt32LE(newIndex(section.info), 0x2c);
  });
  const result = Buffer.concat([...parts, Buffer.alloc(tablePadding), table]);
  result.writeBigUInt64LE(BigInt(length + tablePadding), 0x28);
  result.writeUInt16LE(kept.length, 0x3c);
  result.writeUInt16LE(newIndex(shstrndx), 0x3e);
  return result;
}
