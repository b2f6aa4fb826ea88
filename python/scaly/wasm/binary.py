"""Read a WebAssembly module's imports and exports with their signatures, from
the binary (so the manifest states what the linker produced, not what was
meant)."""

from __future__ import annotations

_VALTYPES = {0x7F: "i32", 0x7E: "i64", 0x7D: "f32", 0x7C: "f64", 0x7B: "v128",
             0x70: "funcref", 0x6F: "externref"}
_KINDS = {0: "func", 1: "table", 2: "memory", 3: "global"}


class _Reader:
    def __init__(self, data, pos=0, end=None):
        self.data, self.pos, self.end = data, pos, len(data) if end is None else end

    def byte(self):
        if self.pos >= self.end:
            raise ValueError("truncated WebAssembly module")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def uleb(self):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    def name(self):
        n = self.uleb()
        text = bytes(self.data[self.pos:self.pos + n]).decode("utf-8")
        self.pos += n
        return text

    def skip_limits(self):
        flags = self.byte()
        self.uleb()
        if flags & 1:
            self.uleb()


def read_signatures(data):
    """{"imports": [(module, name, kind, signature)], "exports": {name: (kind, signature)}}
    where a function's signature is (params, results) as tuples of value types,
    and other kinds have signature None."""
    if bytes(data[:4]) != b"\0asm":
        raise ValueError("not a WebAssembly module (no \\0asm magic)")
    r = _Reader(data, 8)
    types, functions, imports, exports = [], [], [], {}
    while r.pos < r.end:
        section, size = r.byte(), r.uleb()
        body = _Reader(data, r.pos, r.pos + size)
        r.pos += size
        if section == 1:
            for _ in range(body.uleb()):
                if body.byte() != 0x60:
                    raise ValueError("unsupported WebAssembly type form")
                params = tuple(_VALTYPES[body.byte()] for _ in range(body.uleb()))
                results = tuple(_VALTYPES[body.byte()] for _ in range(body.uleb()))
                types.append((params, results))
        elif section == 2:
            for _ in range(body.uleb()):
                module, name, kind = body.name(), body.name(), body.byte()
                signature = None
                if kind == 0:
                    signature = types[body.uleb()]
                    functions.append(signature)
                elif kind == 1:
                    body.byte()
                    body.skip_limits()
                elif kind == 2:
                    body.skip_limits()
                elif kind == 3:
                    body.byte()
                    body.byte()
                else:
                    raise ValueError(f"unsupported WebAssembly import kind {kind} ({module}.{name})")
                imports.append((module, name, _KINDS[kind], signature))
        elif section == 3:
            functions += [types[body.uleb()] for _ in range(body.uleb())]
        elif section == 7:
            for _ in range(body.uleb()):
                name, kind, index = body.name(), body.byte(), body.uleb()
                if kind not in _KINDS:
                    raise ValueError(f"unsupported WebAssembly export kind {kind} ({name})")
                exports[name] = (_KINDS[kind], functions[index] if kind == 0 else None)
    return {"imports": imports, "exports": exports}
