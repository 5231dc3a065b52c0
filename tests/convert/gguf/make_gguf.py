#!/usr/bin/env python3
"""Writes the GGUF test files of `pecheck spec from-gguf` byte by byte, from the format's published description.

    make_gguf.py OUTDIR

GGUF (ggml's docs/gguf.md): little-endian; "GGUF", u32 version, u64 tensor_count, u64
metadata_kv_count, then each key/value: the key as u64 length + bytes, a u32 value type, the value
(a string is u64 length + bytes; an array is u32 element type, u64 count, the elements). Then the
tensor infos and data, which pecheck never reads: each file ends with a fake tensor info and a few
bytes of fake data. Real-model files carry the metadata llama.cpp's converter writes for them (the
position keys from the models' published configs; the tokenizer reduced to three tokens). The
corrupt files are built so that each error's byte offset can be counted by hand (see their
comments). Each NAME.gguf is written with NAME.expected from this directory beside it."""
import os
import shutil
import struct
import sys

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
PACK = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<B", U64: "<Q", I64: "<q", F64: "<d"}


def string(text):
    raw = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(raw)) + raw


def value(vtype, v):
    if vtype == STRING:
        return string(v)
    if vtype == ARRAY:
        etype, items = v
        return struct.pack("<IQ", etype, len(items)) + b"".join(value(etype, x) for x in items)
    return struct.pack(PACK[vtype], v)


def kv(key, vtype, v):
    return string(key) + struct.pack("<I", vtype) + value(vtype, v)


def header(count, version=3, tensors=1):
    return b"GGUF" + struct.pack("<IQQ", version, tensors, count)


# A tensor info (name, n_dims, dims, ggml type, offset) and 32 bytes of fake tensor data.
TAIL = string("token_embd.weight") + struct.pack("<IQQIQ", 2, 8, 4, 0, 0) + bytes(range(32))


def model(arch, keys, version=3):
    """A model's file: general.* first, the architecture's keys, a tokenizer, the fake tensors."""
    pairs = [kv("general.architecture", STRING, arch), kv("general.name", STRING, arch + " test"), kv("general.file_type", U32, 1)]
    pairs += [kv(f"{arch}.{k}", t, v) for k, t, v in keys]
    pairs += [kv("tokenizer.ggml.model", STRING, "gpt2"), kv("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "hello"])),
              kv("tokenizer.ggml.scores", ARRAY, (F32, [0.0, -1.5, -2.25])), kv("tokenizer.ggml.add_bos_token", BOOL, 1)]
    return header(len(pairs), version) + b"".join(pairs) + TAIL


def llama_like(context, embedding, blocks, heads, kv_heads, extra):
    return [("context_length", U32, context), ("embedding_length", U32, embedding), ("block_count", U32, blocks),
            ("feed_forward_length", U32, 4 * embedding), ("attention.head_count", U32, heads),
            ("attention.head_count_kv", U32, kv_heads), ("attention.layer_norm_rms_epsilon", F32, 1e-5)] + extra


FILES = {
    # Llama 2 7B (converted before rope_theta was in its config): no rope.freq_base.
    "llama2_7b": model("llama", llama_like(4096, 4096, 32, 32, 32, [("rope.dimension_count", U32, 128)]), version=2),
    # Llama 3 8B: theta 500000.
    "llama3_8b": model("llama", llama_like(8192, 4096, 32, 32, 8, [("rope.dimension_count", U32, 128), ("rope.freq_base", F32, 500000.0)])),
    # A linearly scaled Llama 2 (factor 2) in the older key, with no scaling type.
    "llama2_scale_linear": model("llama", llama_like(8192, 4096, 32, 32, 32, [("rope.freq_base", F32, 10000.0), ("rope.scale_linear", F32, 2.0)])),
    # Qwen2 7B: no dimension_count (the whole head rotates), theta 1e6.
    "qwen2_7b": model("qwen2", llama_like(32768, 3584, 28, 28, 4, [("rope.freq_base", F32, 1000000.0)])),
    # Qwen2.5 7B with its published YaRN (factor 4 over 32768).
    "qwen2_5_7b_yarn": model("qwen2", llama_like(131072, 3584, 28, 28, 4, [
        ("rope.freq_base", F32, 1000000.0), ("rope.scaling.type", STRING, "yarn"), ("rope.scaling.factor", F32, 4.0),
        ("rope.scaling.original_context_length", U32, 32768)])),
    # Qwen2-VL 7B: mrope sections [16, 24, 24] and llama.cpp's fourth 0.
    "qwen2vl_7b": model("qwen2vl", llama_like(32768, 3584, 28, 28, 4, [
        ("rope.freq_base", F32, 1000000.0), ("rope.dimension_sections", ARRAY, (I32, [16, 24, 24, 0]))])),
    # Gemma 7B: 16 heads of 256 (key_length), wider than embedding_length / head_count = 192.
    "gemma_7b": model("gemma", llama_like(8192, 3072, 28, 16, 16, [("attention.key_length", U32, 256), ("attention.value_length", U32, 256),
                                                                    ("rope.freq_base", F32, 10000.0)])),
    # Phi-3 mini 4k: 32 heads of 96, all rotated.
    "phi3_mini_4k": model("phi3", llama_like(4096, 3072, 32, 32, 32, [("rope.dimension_count", U32, 96), ("rope.freq_base", F32, 10000.0)])),
    # BLOOM 560M: ALiBi over 16 heads.
    "bloom_560m": model("bloom", [("context_length", U32, 2048), ("embedding_length", U32, 1024), ("block_count", U32, 24),
                                  ("attention.head_count", U32, 16), ("attention.layer_norm_epsilon", F32, 1e-5)]),
    # MPT 7B: ALiBi with alibi_bias_max 8.
    "mpt_7b": model("mpt", [("context_length", U32, 2048), ("embedding_length", U32, 4096), ("block_count", U32, 32),
                            ("attention.head_count", U32, 32), ("attention.max_alibi_bias", F32, 8.0)]),
    # Falcon 7B: 71 heads of 64 (4544 / 71), one KV head, no rope.freq_base.
    "falcon_7b": model("falcon", [("context_length", U32, 2048), ("embedding_length", U32, 4544), ("block_count", U32, 32),
                                  ("attention.head_count", U32, 71), ("attention.head_count_kv", U32, 1)]),
    # GPT-NeoX 20B: 64 heads of 96, the first 24 dims rotated (rotary_pct 0.25).
    "gptneox_20b": model("gptneox", [("context_length", U32, 2048), ("embedding_length", U32, 6144), ("block_count", U32, 44),
                                     ("attention.head_count", U32, 64), ("rope.dimension_count", U32, 24), ("rope.freq_base", F32, 10000.0),
                                     ("use_parallel_residual", BOOL, 1)]),
    # Gemma 3 4B (google/gemma-3-4b-it's text_config): 34 layers, 8 heads of 256, theta 1e6 with
    # linear scaling 8 (global layers), sliding window 1024. The layer pattern and the local base are
    # not in the file: llama.cpp sets them in code.
    "gemma3_4b": model("gemma3", [("context_length", U32, 131072), ("embedding_length", U32, 2560), ("block_count", U32, 34),
                                  ("feed_forward_length", U32, 10240), ("attention.head_count", U32, 8), ("attention.head_count_kv", U32, 4),
                                  ("attention.key_length", U32, 256), ("attention.value_length", U32, 256),
                                  ("attention.layer_norm_rms_epsilon", F32, 1e-6), ("rope.freq_base", F32, 1000000.0),
                                  ("attention.sliding_window", U32, 1024), ("rope.scaling.type", STRING, "linear"),
                                  ("rope.scaling.factor", F32, 8.0)]),
    # Llama 4 Scout 17B-16E (its text_config): 48 layers, 40 heads of 128, theta 500000; the llama3
    # scaling goes to the rope_freqs tensor and the NoPE layers and temperature are llama.cpp's code.
    "llama4_scout": model("llama4", [("context_length", U32, 10485760), ("embedding_length", U32, 5120), ("block_count", U32, 48),
                                     ("feed_forward_length", U32, 16384), ("attention.head_count", U32, 40),
                                     ("attention.head_count_kv", U32, 8), ("rope.freq_base", F32, 500000.0),
                                     ("attention.layer_norm_rms_epsilon", F32, 1e-5), ("expert_count", U32, 16),
                                     ("expert_used_count", U32, 1), ("vocab_size", U32, 202048), ("rope.dimension_count", U32, 128),
                                     ("interleave_moe_layer_step", U32, 1), ("expert_feed_forward_length", U32, 8192)]),
    # Metadata errors: one line naming the key.
    "error_unknown_arch": model("deepseek2", llama_like(32768, 2560, 34, 8, 4, [("rope.freq_base", F32, 1000000.0)])),
    "error_missing_block_count": model("llama", [("context_length", U32, 4096), ("embedding_length", U32, 4096), ("attention.head_count", U32, 32)]),
    "error_unknown_scaling_type": model("qwen2", llama_like(32768, 3584, 28, 28, 4, [("rope.scaling.type", STRING, "magic"), ("rope.scaling.factor", F32, 2.0)])),
    # Gemma 3 without its sliding window; a Llama 4 with sliding window 0 (the versions of llama.cpp disagree).
    "error_gemma3_no_sliding_window": model("gemma3", llama_like(32768, 2560, 34, 8, 4, [("attention.key_length", U32, 256), ("rope.freq_base", F32, 1000000.0)])),
    "error_llama4_sliding_window_0": model("llama4", llama_like(131072, 5120, 48, 40, 8, [("rope.freq_base", F32, 500000.0), ("attention.sliding_window", U32, 0)])),
    # A base written as a string.
    "error_freq_base_string": model("qwen2", llama_like(32768, 3584, 28, 28, 4, [("rope.freq_base", STRING, "1e6")])),
    # Caps far above real files: 4097 layers (--limit layers), 65 mrope sections (llama.cpp reads 4).
    "error_block_count_4097": model("llama", llama_like(8192, 4096, 4097, 32, 8, [("rope.freq_base", F32, 500000.0)])),
    "error_sections_65": model("qwen2vl", llama_like(32768, 3584, 28, 28, 4, [("rope.dimension_sections", ARRAY, (I32, [16] * 65))])),
    # A head size that cannot rotate is blamed on the key that gave it, not on rope.dimension_count.
    "error_key_length_0": model("llama", llama_like(8192, 4096, 32, 32, 8, [("attention.key_length", U32, 0)])),
    "error_key_length_127": model("llama", llama_like(8192, 4096, 32, 32, 8, [("attention.key_length", U32, 127)])),
    # Phi-3 mini 128k: its LongRoPE factors are tensors, only original_context_length says so.
    "error_phi3_longrope": model("phi3", llama_like(131072, 3072, 32, 32, 32, [("rope.dimension_count", U32, 96), ("rope.freq_base", F32, 10000.0),
                                                                              ("rope.scaling.original_context_length", U32, 4096)])),
}

# The corrupt files. The header is 24 bytes; "general.architecture" = "llama" takes bytes 24-68
# (key length 24-31, key 32-51, type 52-55, value length 56-63, value 64-68); the next key's
# length starts at byte 69 and its text at 77.
ARCH = kv("general.architecture", STRING, "llama")
FILES.update({
    "error_bad_magic": b"GGUG" + FILES["llama3_8b"][4:],
    "error_version1": b"GGUF" + struct.pack("<I", 1) + FILES["llama3_8b"][8:],
    # Key 1 says 17 bytes ("llama.block_count"); 5 are there.
    "error_truncated_key": header(2) + ARCH + string("llama.block_count")[:8 + 5],
    # The architecture says 5 bytes; 3 ("lla") are there.
    "error_truncated_string": header(1) + kv("general.architecture", STRING, "llama")[:-2],
    # tokenizer.ggml.tokens (key 77-97, type 98-101, element type 102-105, count 106-113): "<s>" at
    # 114-124, "</s>" at 125-136, the third's length (5) at 137-144, and 2 of its bytes.
    "error_truncated_array": header(2) + ARCH + kv("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "hello"]))[:-3],
    # Key 1's length is 2^64 - 1; 16 bytes follow it.
    "error_length_past_file": header(2) + ARCH + struct.pack("<Q", 2**64 - 1) + bytes(16),
    # tokenizer.ggml.scores claims 2^40 float32s (count at 106-113); 16 bytes follow.
    "error_array_2_40": header(2) + ARCH + string("tokenizer.ggml.scores") + struct.pack("<IIQ", ARRAY, F32, 2**40) + bytes(16),
    # llama.block_count (key 77-93) with value type 13 at byte 94.
    "error_unknown_type": header(2) + ARCH + string("llama.block_count") + struct.pack("<I", 13) + bytes(8),
    # An array of arrays 40 deep (nesting over --limit depth=32): "deep.nesting" at 77-88, type
    # 89-92, then 12 bytes (element type, count) per array: the 33rd's at 93 + 32 * 12 = 477.
    "error_nested_arrays": header(2) + ARCH + string("deep.nesting") + struct.pack("<I", ARRAY)
                           + b"".join(struct.pack("<IQ", ARRAY, 1) for _ in range(39)) + struct.pack("<IQ", U8, 1) + b"\x00",
    # metadata_kv_count (bytes 16-23) of 65537, one past the cap, with 13 bytes for each (the least one takes).
    "error_keys_65537": header(65537) + bytes(65537 * 13),
    # A bool of 2: "tokenizer.ggml.add_bos" at 77-98, type 99-102, the value at 103.
    "error_bool_2": header(2) + ARCH + kv("tokenizer.ggml.add_bos", BOOL, 2),
})


def main():
    out = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for name, data in FILES.items():
        with open(os.path.join(out, name + ".gguf"), "wb") as f:
            f.write(data)
        shutil.copyfile(os.path.join(here, name + ".expected"), os.path.join(out, name + ".expected"))
    print(f"{len(FILES)} GGUF files in {out}")


if __name__ == "__main__":
    main()
