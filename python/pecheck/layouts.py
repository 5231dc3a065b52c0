"""Memory layouts in which serve hands a function its [T, H, D] inputs, and the check after each call
that the function left its inputs, and the memory around them, as they were.

The function always gets [T, H, D] arrays; what differs is the memory under them (the gate's
--layouts picks; src/gate/README.md, "The wire protocol"):
    contiguous    row-major [T, H, D], the wire's own order
    padded_heads  a slice [..., :D] of a [T, H, D + 64] buffer: heads D + 64 elements apart
    transposed    the [T, H, D] view of a row-major [H, T, D] buffer
    packed_qkv    the middle (key) third of a packed [T, 3H, D] buffer: an offset and a token stride of 3HD
The memory around a view holds NaN: a kernel that reads past its view's strides turns out NaN, and
one that writes there is named. Inputs of another rank (positions, tables) are always contiguous.
"""

LAYOUTS = ("contiguous", "padded_heads", "transposed", "packed_qkv")
# Elements past each head under padded_heads, as vLLM's rotary test pads its heads (head_size + 64).
HEAD_PADDING = 64
# The most elements a layout's buffer may hold: 2^28 (1 GiB at f32), past the gate's largest call
# (the audit's, 2^27 elements). A request whose padding would take more is refused, not allocated.
MAX_BUFFER_ELEMENTS = 1 << 28


class Presented:
    """One input as the function is handed it: view, over buffer; and a copy of buffer from before the call."""

    def __init__(self, name, value, layout, io):
        if layout not in LAYOUTS:
            raise ValueError(f"input {name}: layout {layout!r} is none of {', '.join(LAYOUTS)}")
        if layout != "contiguous" and len(value.shape) != 3:
            raise ValueError(f"input {name}: layout {layout} is for [T, H, D] inputs, not shape {list(value.shape)}")
        self.name, self.layout, self.shape = name, layout, tuple(value.shape)
        if layout == "contiguous":
            self.buffer = self.view = value
        else:
            tokens, heads, dim = self.shape
            padded = (dim + HEAD_PADDING if layout == "padded_heads" else 3 * dim if layout == "packed_qkv" else dim) * tokens * heads
            if padded > MAX_BUFFER_ELEMENTS:
                raise ValueError(f"input {name}: layout {layout} of shape {list(self.shape)} takes {padded} elements, more than {MAX_BUFFER_ELEMENTS}")
            if layout == "padded_heads":
                self.buffer = io.canaries(value, (tokens, heads, dim + HEAD_PADDING))
                self.view = self.buffer[:, :, :dim]
            elif layout == "transposed":
                self.buffer = io.canaries(value, (heads, tokens, dim))
                self.view = io.swap_first_axes(self.buffer)
            else:
                self.buffer = io.canaries(value, (tokens, 3 * heads, dim))
                self.view = self.buffer[:, heads:2 * heads]
            self.view[...] = value
        self.before = io.copy(self.buffer)

    def view_index(self, index):
        """The view's index of the buffer's element `index`, or None for one outside the view."""
        if self.layout == "padded_heads":
            return index if index[2] < self.shape[2] else None
        if self.layout == "transposed":
            return (index[1], index[0], index[2])
        if self.layout == "packed_qkv":
            heads = self.shape[1]
            return (index[0], index[1] - heads, index[2]) if heads <= index[1] < 2 * heads else None
        return index

    def change(self, io, view_may_change):
        """None when the buffer holds what it held before the call (its view excepted when
        view_may_change: an in-place kernel's output), else one line naming the first element written."""
        for index in io.changed(self.before, self.buffer):
            at = self.view_index(index)
            was, now = io.item(self.before, index), io.item(self.buffer, index)
            if at is None:
                return (f"wrote into the memory around its input {self.name} (layout {self.layout}): element {list(index)} of its "
                        f"{list(self.buffer.shape)} buffer was {was}, is now {now}")
            if not view_may_change:
                return (f"wrote into its input {self.name}{' (layout ' + self.layout + ')' if self.layout != 'contiguous' else ''}: "
                        f"{self.name}{list(at)} was {was}, is now {now} (a kernel that works in place is served with inplace=True, "
                        "python -m pecheck --inplace: its output is then read from its input)")
        return None


class InputWritten(Exception):
    """The function wrote into an input, or the memory around one, that it was not declared to write."""
