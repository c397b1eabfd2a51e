/* ChaCha20 (RFC 8439) key stream XORed into the data: one 64-byte block per thread and loop turn.
 * Pure add-rotate-xor on registers: constant-time. `state` is the RFC's 16-word initial state of the
 * first block; block i of this launch uses counter `counter` + i (the host keeps the 32-bit counter
 * from wrapping). */

#define CHACHA_QR(a, b, c, d) \
    a += b; d ^= a; d = ROTL32(d, 16); \
    c += d; b ^= c; b = ROTL32(b, 12); \
    a += b; d ^= a; d = ROTL32(d, 8);  \
    c += d; b ^= c; b = ROTL32(b, 7);

/* XORs into `d` (16 words) the ChaCha20 block whose input is words 0..11 of `s` (constants, key,
 * and anything the caller keeps there) followed by the row `c12 c13 c14 c15` (counter and nonce). */
DEVICE_FN void chacha20_block_xor(const u32 *s, u32 c12, u32 c13, u32 c14, u32 c15, GLOBAL u32 *d)
{
    u32 x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3];
    u32 x4 = s[4], x5 = s[5], x6 = s[6], x7 = s[7];
    u32 x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11];
    u32 x12 = c12, x13 = c13, x14 = c14, x15 = c15;
    for (int r = 0; r < 10; r++) {
        CHACHA_QR(x0, x4, x8, x12)
        CHACHA_QR(x1, x5, x9, x13)
        CHACHA_QR(x2, x6, x10, x14)
        CHACHA_QR(x3, x7, x11, x15)
        CHACHA_QR(x0, x5, x10, x15)
        CHACHA_QR(x1, x6, x11, x12)
        CHACHA_QR(x2, x7, x8, x13)
        CHACHA_QR(x3, x4, x9, x14)
    }
    d[0] ^= x0 + s[0];    d[1] ^= x1 + s[1];    d[2] ^= x2 + s[2];    d[3] ^= x3 + s[3];
    d[4] ^= x4 + s[4];    d[5] ^= x5 + s[5];    d[6] ^= x6 + s[6];    d[7] ^= x7 + s[7];
    d[8] ^= x8 + s[8];    d[9] ^= x9 + s[9];    d[10] ^= x10 + s[10]; d[11] ^= x11 + s[11];
    d[12] ^= x12 + c12;   d[13] ^= x13 + c13;   d[14] ^= x14 + c14;   d[15] ^= x15 + c15;
}

KERNEL void chacha20_xor(GLOBAL u32 *data, GLOBAL const u32 *state, u32 counter, u64 nblocks)
{
    u32 s[16];
    for (int j = 0; j < 16; j++)
        s[j] = state[j];
    for (u64 i = GLOBAL_ID(); i < nblocks; i += GLOBAL_SIZE())
        chacha20_block_xor(s, counter + (u32)i, s[13], s[14], s[15], data + i * 16);
}
