"""The fragment evbench keeps when an RU is out of sync (docs/USER_GUIDE.md,
"Failures and fault injection"), checked against what stderr said of it:
its header (core/messages.hpp FragmentHeader, 64 bytes) and, for a
multi-event fragment (a MEP, header version 3), its per-event table.
Each check returns what is wrong, or None."""
import struct

FRAGMENT_MAGIC = 0x46524731
EVENT_HEADER = struct.Struct("<IHHQIIQQIIIIQ")  # version 2: one event
MEP_HEADER = struct.Struct("<IHHQIIQQIIIIII")  # version 3: event count in field 11
MEP_ENTRY = struct.Struct("<QQ")  # MepEntry: event, size


def _read(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < EVENT_HEADER.size:
        return None, f"{path}: {len(data)} bytes, shorter than a header"
    return data, None


def check_event_fragment(path, ru, bu, event):
    """A one-event fragment of RU `ru` for BU `bu`, labelled `event`."""
    data, error = _read(path)
    if error:
        return error
    (magic, version, meta_segments, event_id, h_ru, h_bu, _seq, payload, meta_size, _crc,
     _hcrc, _r0, _r1) = EVENT_HEADER.unpack_from(data)
    if magic != FRAGMENT_MAGIC or version != 2:
        return f"{path}: magic {magic:#x} version {version}"
    if event_id != event or h_ru != ru or h_bu != bu:
        return f"{path}: header event {event_id} RU {h_ru} BU {h_bu}, expected {event}, {ru}, {bu}"
    if len(data) != EVENT_HEADER.size + meta_segments * meta_size + payload:
        return (f"{path}: {len(data)} bytes, the header says "
                f"{EVENT_HEADER.size + meta_segments * meta_size + payload}")
    return None


def check_mep_fragment(path, ru, mep, events, first):
    """A MEP of RU `ru` numbered `mep`, of `events` events, its table
    starting at event `first`."""
    data, error = _read(path)
    if error:
        return error
    h = MEP_HEADER.unpack_from(data)
    magic, version, meta, payload, count = h[0], h[1], h[2] * h[8], h[7], h[11]
    if magic != FRAGMENT_MAGIC or version != 3 or count != events or h[3] != mep or h[4] != ru:
        return (f"{path}: magic {magic:#x} version {version}, {count} events, MEP {h[3]}, "
                f"RU {h[4]}; expected version 3, {events} events, MEP {mep}, RU {ru}")
    if len(data) != MEP_HEADER.size + events * MEP_ENTRY.size + meta + payload:
        return f"{path}: {len(data)} bytes, the header and table say otherwise"
    table = MEP_ENTRY.unpack_from(data, MEP_HEADER.size)[0]
    if table != first:
        return f"{path}: the table starts at event {table}, expected {first}"
    return None
