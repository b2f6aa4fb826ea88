"""Struct layout on wasm32, by C's rules: each field at a multiple of its own
alignment, the size padded to the struct's alignment (the largest of the
fields' and any requested by the struct itself)."""

from __future__ import annotations

#: (size, alignment) in bytes of the C types Scaly's structs hold, on wasm32.
C_TYPES = {
    "double": (8, 8), "float": (4, 4), "int64_t": (8, 8), "int32_t": (4, 4),
    "uint32_t": (4, 4), "uint8_t": (1, 1), "char": (1, 1), "int": (4, 4), "pointer": (4, 4),
}

#: The alignment Scaly's typed <entry>_in/_out structs request.
TYPED_STRUCT_ALIGN = 16


def align_up(offset, alignment):
    """`offset` rounded up to a multiple of `alignment` (a power of two)."""
    return (offset + alignment - 1) & ~(alignment - 1)


def calc_layout(fields, struct_align=1):
    """Offsets and size of a C struct on wasm32.

    `fields` is a list of (name, c_type, count): `count` elements of `c_type`
    (an array field when count > 1). `struct_align` is an alignment the struct
    requests (`__attribute__((aligned(16)))`). Returns (offsets, size, align):
    offsets maps each field name to its byte offset.
    """
    offset, align, offsets = 0, struct_align, {}
    for name, c_type, count in fields:
        if c_type not in C_TYPES:
            raise ValueError(f"calc_layout: field {name!r} has C type {c_type!r}; expected one of "
                             f"{', '.join(sorted(C_TYPES))}")
        if type(count) is not int or count < 1:
            raise ValueError(f"calc_layout: field {name!r} has count {count!r}; expected an int >= 1")
        size, field_align = C_TYPES[c_type]
        align = max(align, field_align)
        offset = align_up(offset, field_align)
        offsets[name] = offset
        offset += size * count
    return offsets, align_up(offset, align), align


def typed_struct_fields(ports):
    """The fields of a typed <entry>_in/_out struct, from the manifest's ports:
    one per port with values, `char unused_` when there are none."""
    fields = []
    for p in ports:
        count = 1
        for d in p["shape"]:
            count *= d
        if count:
            fields.append((p["field"], p["c_type"], count))
    return fields or [("unused_", "char", 1)]


def typed_struct_layout(ports):
    """calc_layout of a typed struct (16-byte aligned, as the header declares it)."""
    return calc_layout(typed_struct_fields(ports), TYPED_STRUCT_ALIGN)
