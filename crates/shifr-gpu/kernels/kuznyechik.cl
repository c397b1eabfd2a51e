/* Kuznyechik (GOST R 34.12-2015, RFC 7801), CTR and ECB, with the fused LS tables: T[j][b] =
 * L(S(b) in byte j), sixteen 256-entry tables of 16 bytes (64 KiB) in global memory (the GPU's L1 /
 * texture cache holds them; too large to replicate in shared memory). A round is X ^= K_i, then the
 * XOR of T[j][X_j] over the sixteen bytes. The table indices depend on key and data: NOT
 * constant-time. Blocks are two little-endian-loaded 64-bit words in wire byte order; round keys
 * likewise (20 words). */

/* (c0, c1) ^= XOR_j T[j][x_j] for the block x = (a, b): one fused table layer (LS, or with the
 * inverse tables L^-1 S^-1). */
DEVICE_FN void kuz_layer(GLOBAL const u64 *T, u64 a, u64 b, u64 *c0, u64 *c1)
{
    u64 x0 = *c0, x1 = *c1;
    for (int j = 0; j < 8; j++) {
        const u32 ia = ((u32)j * 256u + BYTE(a, j)) * 2u;
        const u32 ib = ((u32)(j + 8) * 256u + BYTE(b, j)) * 2u;
        x0 ^= T[ia] ^ T[ib];
        x1 ^= T[ia + 1] ^ T[ib + 1];
    }
    *c0 = x0;
    *c1 = x1;
}

DEVICE_FN void kuz_block(GLOBAL const u64 *T, const u64 *rk, u64 *w0, u64 *w1)
{
    u64 a = *w0 ^ rk[0], b = *w1 ^ rk[1];
    for (int r = 1; r < 10; r++) {
        u64 c0 = rk[2 * r], c1 = rk[2 * r + 1];
        kuz_layer(T, a, b, &c0, &c1);
        a = c0;
        b = c1;
    }
    *w0 = a;
    *w1 = b;
}

DEVICE_FN void kuz_load_keys(u64 *rk, GLOBAL const u64 *keys)
{
    for (int j = 0; j < 20; j++)
        rk[j] = keys[j];
}

/* Counter block number (hi, lo) + i as a 128-bit big-endian integer, written in wire order. */
KERNEL void kuznyechik_ctr(GLOBAL u64 *data, GLOBAL const u64 *tables, GLOBAL const u64 *keys,
                           u64 counter_hi, u64 counter_lo, u64 nblocks)
{
    u64 rk[20];
    kuz_load_keys(rk, keys);
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        const u64 lo = counter_lo + i;
        const u64 hi = counter_hi + (lo < counter_lo ? 1u : 0u);
        u64 w0 = bswap64(hi), w1 = bswap64(lo);
        kuz_block(tables, rk, &w0, &w1);
        data[2 * i] ^= w0;
        data[2 * i + 1] ^= w1;
    }
}

KERNEL void kuznyechik_ecb(GLOBAL u64 *data, GLOBAL const u64 *tables, GLOBAL const u64 *keys,
                           u64 nblocks)
{
    u64 rk[20];
    kuz_load_keys(rk, keys);
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        u64 w0 = data[2 * i], w1 = data[2 * i + 1];
        kuz_block(tables, rk, &w0, &w1);
        data[2 * i] = w0;
        data[2 * i + 1] = w1;
    }
}

/* ---- Multi-stream GOST R 34.13 modes, one thread per stream, each with its own key and IV. ----
 *
 * The key schedule runs in the kernel (GOST R 34.12 section 5.4: K1 || K2 = key, then four times eight
 * Feistel rounds F[C_i](a1, a0) = (LSX[C_i](a1) ^ a0, a1) with the round constants C_1..C_32, through
 * the same fused tables): 32 table layers per stream, about 11 % of a 512-byte stream's 288, against a
 * host schedule that would cost a CPU core microseconds per key and upload 160 bytes of round keys per
 * stream instead of the 32-byte key. Like the cipher it is table-driven: NOT constant-time. */

DEVICE_FN void kuz_expand(GLOBAL const u64 *T, GLOBAL const u64 *C, GLOBAL const u64 *key, u64 *rk)
{
    u64 x0 = key[0], x1 = key[1], y0 = key[2], y1 = key[3];
    rk[0] = x0;
    rk[1] = x1;
    rk[2] = y0;
    rk[3] = y1;
    for (int i = 0; i < 4; i++) {
        for (int r = 0; r < 8; r++) {
            const int c = 2 * (8 * i + r);
            u64 n0 = y0, n1 = y1;
            kuz_layer(T, x0 ^ C[c], x1 ^ C[c + 1], &n0, &n1);
            y0 = x0;
            y1 = x1;
            x0 = n0;
            x1 = n1;
        }
        rk[4 * i + 4] = x0;
        rk[4 * i + 5] = x1;
        rk[4 * i + 6] = y0;
        rk[4 * i + 7] = y1;
    }
}

/* The inverse tables IT (16 x 256 x 16 bytes: IT[j][b] = L^-1(S^-1(b) in byte j)), then PI and
 * PI^-1 as bytes. */
#define KUZ_PI(IT) ((GLOBAL const u8 *)((IT) + 8192))
#define KUZ_PI_INV(IT) ((GLOBAL const u8 *)((IT) + 8192) + 256)

/* Block x with every byte replaced through the 256-byte table p. */
DEVICE_FN void kuz_bytes(GLOBAL const u8 *p, u64 *a, u64 *b)
{
    u64 x = 0, y = 0;
    for (int j = 0; j < 8; j++) {
        x |= (u64)p[BYTE(*a, j)] << (8 * j);
        y |= (u64)p[BYTE(*b, j)] << (8 * j);
    }
    *a = x;
    *b = y;
}

/* L^-1(x) = XOR_j IT[j][PI(x_j)], in place. */
DEVICE_FN void kuz_l_inv(GLOBAL const u64 *IT, u64 *a, u64 *b)
{
    u64 s0 = *a, s1 = *b, c0 = 0, c1 = 0;
    kuz_bytes(KUZ_PI(IT), &s0, &s1);
    kuz_layer(IT, s0, s1, &c0, &c1);
    *a = c0;
    *b = c1;
}

/* Decryption with ik = K1, L^-1(K2), ..., L^-1(K9), K10 (words as rk):
 * x ^= K10; x = L^-1(x); for i = 9..2: x = IT(x) ^ L^-1(K_i); x = PI^-1(x) ^ K1. */
DEVICE_FN void kuz_block_inv(GLOBAL const u64 *IT, const u64 *ik, u64 *w0, u64 *w1)
{
    u64 a = *w0 ^ ik[18], b = *w1 ^ ik[19];
    kuz_l_inv(IT, &a, &b);
    for (int r = 8; r >= 1; r--) {
        u64 c0 = ik[2 * r], c1 = ik[2 * r + 1];
        kuz_layer(IT, a, b, &c0, &c1);
        a = c0;
        b = c1;
    }
    kuz_bytes(KUZ_PI_INV(IT), &a, &b);
    *w0 = a ^ ik[0];
    *w1 = b ^ ik[1];
}

/* x * 2 in GF(2^128) mod x^128 + x^7 + x^2 + x + 1 (OMAC's subkeys) for a block in wire order,
 * without a key-dependent branch. */
DEVICE_FN void kuz_double(u64 *w0, u64 *w1)
{
    const u64 hi = bswap64(*w0), lo = bswap64(*w1);
    const u64 h = (hi << 1) | (lo >> 63);
    const u64 l = (lo << 1) ^ (((u64)0 - (hi >> 63)) & 0x87u);
    *w0 = bswap64(h);
    *w1 = bswap64(l);
}

/* Thread s runs stream s: blocks_per_stream blocks at data + 2 * s * blocks_per_stream words, the
 * 32-byte key keys[4s..4s+4] and the IV ivs[2s..2s+2] (wire order). mode: 0 = CFB encrypt, 1 = CFB
 * decrypt, 2 = CBC encrypt, 3 = OMAC (the full 16-byte tag to tags[2s..2s+2]), 4 = CBC decrypt.
 * Tables: LS (T), the key-schedule constants (C) and, for CBC decryption, the inverse tables (IT). */
KERNEL void kuznyechik_streams(GLOBAL u64 *data, GLOBAL const u64 *T, GLOBAL const u64 *C,
                               GLOBAL const u64 *IT, GLOBAL const u64 *keys, GLOBAL const u64 *ivs,
                               GLOBAL u64 *tags, u32 blocks_per_stream, u32 streams, u32 mode)
{
    for (u64 s = GLOBAL_ID(); s < streams; s += GLOBAL_SIZE()) {
        u64 rk[20];
        kuz_expand(T, C, keys + 4 * s, rk);
        GLOBAL u64 *d = data + 2 * s * blocks_per_stream;
        if (mode == 3u) {
            /* OMAC: R = E(0), K1 = R * x, K2 = K1 * x; the last block is XORed with K1 (whole
             * blocks) or, for the empty message, the padded block 0x80 || 0 with K2. */
            u64 k0 = 0, k1 = 0;
            kuz_block(T, rk, &k0, &k1);
            kuz_double(&k0, &k1);
            u64 s0 = 0, s1 = 0;
            if (blocks_per_stream == 0u) {
                kuz_double(&k0, &k1);
                s0 = 0x80u ^ k0;
                s1 = k1;
                kuz_block(T, rk, &s0, &s1);
            } else {
                for (u32 b = 0; b < blocks_per_stream; b++) {
                    s0 ^= d[2 * b];
                    s1 ^= d[2 * b + 1];
                    if (b + 1u == blocks_per_stream) {
                        s0 ^= k0;
                        s1 ^= k1;
                    }
                    kuz_block(T, rk, &s0, &s1);
                }
            }
            tags[2 * s] = s0;
            tags[2 * s + 1] = s1;
            continue;
        }
        if (mode == 4u) {
            for (int r = 1; r < 9; r++)
                kuz_l_inv(IT, &rk[2 * r], &rk[2 * r + 1]);
        }
        u64 r0 = ivs[2 * s], r1 = ivs[2 * s + 1];
        for (u32 b = 0; b < blocks_per_stream; b++) {
            const u64 in0 = d[2 * b], in1 = d[2 * b + 1];
            u64 o0, o1;
            if (mode == 2u) {
                o0 = in0 ^ r0;
                o1 = in1 ^ r1;
                kuz_block(T, rk, &o0, &o1);
                r0 = o0;
                r1 = o1;
            } else if (mode == 4u) {
                o0 = in0;
                o1 = in1;
                kuz_block_inv(IT, rk, &o0, &o1);
                o0 ^= r0;
                o1 ^= r1;
                r0 = in0;
                r1 = in1;
            } else {
                kuz_block(T, rk, &r0, &r1);
                o0 = in0 ^ r0;
                o1 = in1 ^ r1;
                r0 = mode == 0u ? o0 : in0;
                r1 = mode == 0u ? o1 : in1;
            }
            d[2 * b] = o0;
            d[2 * b + 1] = o1;
        }
    }
}
