/* AES-128 / AES-256 (FIPS 197), CTR and ECB, with T-tables in local (shared) memory: T0 (and its
 * byte rotations for T1..T3) for the nine / thirteen full rounds and the S-box for the last. The
 * table indices depend on key and data: this path is NOT constant-time (secret-indexed tables).
 * State column c is the little-endian word of bytes 4c..4c+3; round keys are 4*(rounds+1) such
 * words. */

#define AES_T(t, k, x) ROTL32(t[x], 8 * (k))

DEVICE_FN void aes_block(LOCAL_PTR const u32 *T, LOCAL_PTR const u32 *S, GLOBAL const u32 *rk,
                         u32 rounds, u32 *s)
{
    u32 s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
    for (u32 r = 1; r < rounds; r++) {
        GLOBAL const u32 *k = rk + 4 * r;
        const u32 t0 = T[BYTE(s0, 0)] ^ AES_T(T, 1, BYTE(s1, 1)) ^ AES_T(T, 2, BYTE(s2, 2)) ^
                       AES_T(T, 3, BYTE(s3, 3)) ^ k[0];
        const u32 t1 = T[BYTE(s1, 0)] ^ AES_T(T, 1, BYTE(s2, 1)) ^ AES_T(T, 2, BYTE(s3, 2)) ^
                       AES_T(T, 3, BYTE(s0, 3)) ^ k[1];
        const u32 t2 = T[BYTE(s2, 0)] ^ AES_T(T, 1, BYTE(s3, 1)) ^ AES_T(T, 2, BYTE(s0, 2)) ^
                       AES_T(T, 3, BYTE(s1, 3)) ^ k[2];
        const u32 t3 = T[BYTE(s3, 0)] ^ AES_T(T, 1, BYTE(s0, 1)) ^ AES_T(T, 2, BYTE(s1, 2)) ^
                       AES_T(T, 3, BYTE(s2, 3)) ^ k[3];
        s0 = t0;
        s1 = t1;
        s2 = t2;
        s3 = t3;
    }
    GLOBAL const u32 *k = rk + 4 * rounds;
    s[0] = (S[BYTE(s0, 0)] | (S[BYTE(s1, 1)] << 8) | (S[BYTE(s2, 2)] << 16) | (S[BYTE(s3, 3)] << 24)) ^ k[0];
    s[1] = (S[BYTE(s1, 0)] | (S[BYTE(s2, 1)] << 8) | (S[BYTE(s3, 2)] << 16) | (S[BYTE(s0, 3)] << 24)) ^ k[1];
    s[2] = (S[BYTE(s2, 0)] | (S[BYTE(s3, 1)] << 8) | (S[BYTE(s0, 2)] << 16) | (S[BYTE(s1, 3)] << 24)) ^ k[2];
    s[3] = (S[BYTE(s3, 0)] | (S[BYTE(s0, 1)] << 8) | (S[BYTE(s1, 2)] << 16) | (S[BYTE(s2, 3)] << 24)) ^ k[3];
}

/* tables: T0 (256 words) then the S-box (256 words, one byte each). */
DEVICE_FN void aes_load_tables(LOCAL_PTR u32 *T, LOCAL_PTR u32 *S, GLOBAL const u32 *tables)
{
    for (u32 j = LOCAL_ID(); j < 256u; j += LOCAL_SIZE()) {
        T[j] = tables[j];
        S[j] = tables[256 + j];
    }
    BARRIER();
}

KERNEL void aes_ctr(GLOBAL u32 *data, GLOBAL const u32 *tables, GLOBAL const u32 *rk, u32 rounds,
                    u64 counter_hi, u64 counter_lo, u64 nblocks)
{
    LOCAL_ARRAY u32 T[256];
    LOCAL_ARRAY u32 S[256];
    aes_load_tables(T, S, tables);
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        const u64 lo = counter_lo + i;
        const u64 hi = counter_hi + (lo < counter_lo ? 1u : 0u);
        u32 s[4];
        s[0] = bswap32((u32)(hi >> 32));
        s[1] = bswap32((u32)hi);
        s[2] = bswap32((u32)(lo >> 32));
        s[3] = bswap32((u32)lo);
        aes_block(T, S, rk, rounds, s);
        GLOBAL u32 *d = data + 4 * i;
        d[0] ^= s[0];
        d[1] ^= s[1];
        d[2] ^= s[2];
        d[3] ^= s[3];
    }
}

KERNEL void aes_ecb(GLOBAL u32 *data, GLOBAL const u32 *tables, GLOBAL const u32 *rk, u32 rounds,
                    u64 nblocks)
{
    LOCAL_ARRAY u32 T[256];
    LOCAL_ARRAY u32 S[256];
    aes_load_tables(T, S, tables);
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE()) {
        GLOBAL u32 *d = data + 4 * i;
        u32 s[4] = {d[0], d[1], d[2], d[3]};
        aes_block(T, S, rk, rounds, s);
        d[0] = s[0];
        d[1] = s[1];
        d[2] = s[2];
        d[3] = s[3];
    }
}
