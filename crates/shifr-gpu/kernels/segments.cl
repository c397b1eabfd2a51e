/* Key stream of many messages in one launch (the shifr container's chunks, each its own AEAD message):
 * segment s of this launch starts at data word s * stride and holds seg_blocks blocks (the last one
 * possibly fewer: nblocks bounds the launch); the words between segments (the chunks' tags) are not
 * touched. Its key stream starts at the 16-byte start block starts[first_seg + s] (little-endian
 * words), and block j uses the counter layout of the AEAD:
 *   AES-GCM       inc32: the last word counts big-endian mod 2^32
 *   ChaCha20      the block counter (state word 12) counts mod 2^32
 *   Kuznyechik-MGM incr_r: the right 64 bits count big-endian mod 2^64
 *   Magma-MGM     incr_r: the right 32 bits of the 8-byte block count big-endian mod 2^32
 * Constant-time status as in the single-stream kernels: ChaCha20 and Magma (Boolean S-boxes) yes,
 * AES and Kuznyechik (tables) no. */

KERNEL void aes_ctr_segments(GLOBAL u32 *data, GLOBAL const u32 *tables, GLOBAL const u32 *rk,
                             u32 rounds, GLOBAL const u32 *starts, u64 first_seg, u64 seg_blocks,
                             u64 stride, u64 nblocks)
{
    LOCAL_ARRAY u32 T[256];
    LOCAL_ARRAY u32 S[256];
    aes_load_tables(T, S, tables);
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        const u64 s = i / seg_blocks, j = i % seg_blocks;
        GLOBAL const u32 *st = starts + 4 * (first_seg + s);
        u32 b[4];
        b[0] = st[0];
        b[1] = st[1];
        b[2] = st[2];
        b[3] = bswap32(bswap32(st[3]) + (u32)j);
        aes_block(T, S, rk, rounds, b);
        GLOBAL u32 *d = data + s * stride + 4 * j;
        d[0] ^= b[0];
        d[1] ^= b[1];
        d[2] ^= b[2];
        d[3] ^= b[3];
    }
}

KERNEL void kuznyechik_ctr_segments(GLOBAL u64 *data, GLOBAL const u64 *tables,
                                    GLOBAL const u64 *keys, GLOBAL const u64 *starts, u64 first_seg,
                                    u64 seg_blocks, u64 stride, u64 nblocks)
{
    u64 rk[20];
    kuz_load_keys(rk, keys);
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        const u64 s = i / seg_blocks, j = i % seg_blocks;
        GLOBAL const u64 *st = starts + 2 * (first_seg + s);
        u64 w0 = st[0], w1 = bswap64(bswap64(st[1]) + j);
        kuz_block(tables, rk, &w0, &w1);
        GLOBAL u64 *d = data + s * stride + 2 * j;
        d[0] ^= w0;
        d[1] ^= w1;
    }
}

KERNEL void magma_ctr_segments(GLOBAL u32 *data, GLOBAL const u32 *key, GLOBAL const u32 *starts,
                               u64 first_seg, u64 seg_blocks, u64 stride, u64 nblocks)
{
    u32 k[8];
    for (int j = 0; j < 8; j++)
        k[j] = key[j];
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        const u64 s = i / seg_blocks, j = i % seg_blocks;
        GLOBAL const u32 *st = starts + 4 * (first_seg + s);
        const u64 g = magma_block_anf(k, bswap32(st[0]), bswap32(st[1]) + (u32)j);
        MAGMA_XOR(data + s * stride + 2 * j, g);
    }
}

KERNEL void chacha20_segments(GLOBAL u32 *data, GLOBAL const u32 *state, GLOBAL const u32 *starts,
                              u64 first_seg, u64 seg_blocks, u64 stride, u64 nblocks)
{
    u32 s[12];
    for (int w = 0; w < 12; w++)
        s[w] = state[w];
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        const u64 seg = i / seg_blocks, j = i % seg_blocks;
        GLOBAL const u32 *st = starts + 4 * (first_seg + seg);
        chacha20_block_xor(s, st[0] + (u32)j, st[1], st[2], st[3], data + seg * stride + 16 * j);
    }
}
