/* Kuznyechik (GOST R 34.12-2015, RFC 7801), CTR and ECB, with the fused LS tables: T[j][b] =
 * L(S(b) in byte j), sixteen 256-entry tables of 16 bytes (64 KiB) in global memory (the GPU's L1 /
 * texture cache holds them; too large to replicate in shared memory). A round is X ^= K_i, then the
 * XOR of T[j][X_j] over the sixteen bytes. The table indices depend on key and data: NOT
 * constant-time. Blocks are two little-endian-loaded 64-bit words in wire byte order; round keys
 * likewise (20 words). */

DEVICE_FN void kuz_block(GLOBAL const u64 *T, const u64 *rk, u64 *w0, u64 *w1)
{
    u64 a = *w0 ^ rk[0], b = *w1 ^ rk[1];
    for (int r = 1; r < 10; r++) {
        u64 c0 = rk[2 * r], c1 = rk[2 * r + 1];
        for (int j = 0; j < 8; j++) {
            const u32 ia = ((u32)j * 256u + BYTE(a, j)) * 2u;
            const u32 ib = ((u32)(j + 8) * 256u + BYTE(b, j)) * 2u;
            c0 ^= T[ia] ^ T[ib];
            c1 ^= T[ia + 1] ^ T[ib + 1];
        }
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
