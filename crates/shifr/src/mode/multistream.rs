//! Multi-stream feedback modes: many independent streams (each with its own keyed cipher, IV and data)
//! in one call. CBC encryption, CFB and OMAC are sequential within a stream, so a single stream cannot
//! use a wide cipher backend; across streams they can. These functions walk the streams block index by
//! block index and, at each index, encipher one block of every stream still running with a single
//! [`BlockCipher::encrypt_lanes`] call (where SIMD / GPU backends plug in). Streams may have different
//! lengths: the longest come first in the lane order, and shorter ones drop out of the tail. Blocks
//! move between the streams and the lane registers as whole blocks (one word-sized XOR and copy
//! per lane and block; the block size is a constant in the hot loops). CBC encryption first offers
//! the job to [`BlockCipher::cbc_encrypt_streams`] (AES on x86 keeps the chaining values in
//! registers there): whole when the streams have one length, else stretch by stretch between
//! consecutive stream ends, where the streams still running all have the same number of blocks
//! left. Whatever it declines, and CFB and OMAC, are offered run by run (between two points where a
//! stream drops out, every live lane has the same number of whole blocks ahead) to
//! [`BlockCipher::feedback_lanes`] (Magma and Kuznyechik loop over the blocks inside their SIMD
//! kernels there) and walked block index by block index only if the cipher declines; streams of one
//! length in whole blocks go to it whole, in their own order, before any lane layout is built. CBC
//! decryption is parallel within a stream: streams of `SOLO_DECRYPT_BLOCKS` blocks or more are
//! decrypted one by one through [`crate::mode::cbc`] (the cipher's multi-block path), and only the
//! shorter ones are walked across streams.
//!
//! Every function gives exactly what one single-stream call per stream gives ([`crate::mode::cbc`] with
//! an `n`-byte IV, [`crate::mode::cfb`] with `s = m = n`, [`crate::mac::omac`]).

use crate::block::{BlockCipher, Feedback};
use crate::mac::omac::{check_tag_len, double};
use crate::util::xor_in_place;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The common block size of all `ciphers`, checked against the number of IVs / data buffers.
fn common_block_size<C: BlockCipher>(ciphers: &[&C], streams: usize) -> Result<usize> {
    if ciphers.len() != streams {
        return Err(Error::InvalidParameter(
            "multistream: one cipher per stream (and one IV per stream) is required",
        ));
    }
    let n = ciphers.first().map_or(16, |c| c.block_size());
    if n == 0 || n > 16 || ciphers.iter().any(|c| c.block_size() != n) {
        return Err(Error::InvalidParameter(
            "multistream: all ciphers must have the same block size of at most 16 bytes",
        ));
    }
    Ok(n)
}

fn check_ivs(n: usize, ivs: &[&[u8]]) -> Result<()> {
    match ivs.iter().find(|iv| iv.len() != n) {
        Some(iv) => Err(Error::InvalidIvLength {
            expected: "the block size",
            got: iv.len(),
        }),
        None => Ok(()),
    }
}

/// The checks of every multi-stream mode: one cipher and one IV per stream, a common
/// block size, IVs of that size and (`whole_blocks`) whole-block streams. Returns the block size.
fn check_streams<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    mut lens: impl ExactSizeIterator<Item = usize>,
    whole_blocks: bool,
) -> Result<usize> {
    let n = common_block_size(ciphers, lens.len())?;
    if ivs.len() != lens.len() {
        return Err(Error::InvalidParameter(
            "multistream: one IV per stream is required",
        ));
    }
    check_ivs(n, ivs)?;
    if whole_blocks {
        if let Some(len) = lens.find(|len| len % n != 0) {
            return Err(Error::NotBlockAligned { block: n, got: len });
        }
    }
    Ok(n)
}

/// Stream indices ordered by decreasing block count (the lane order), so that at every block index
/// the streams still running are a prefix.
fn lane_order(blocks: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by(|&a, &b| blocks[b].cmp(&blocks[a]));
    order
}

/// Shrinks `live` to the number of lanes (in `order`) that have more than `index` blocks.
fn live_lanes(order: &[usize], blocks: &[usize], mut live: usize, index: usize) -> usize {
    while live > 0 && blocks[order[live - 1]] <= index {
        live -= 1;
    }
    live
}

/// The lane layout of streams that passed [`check_streams`]: `(blocks per stream, lane order, lane
/// ciphers, per-lane register initialised with the IVs)`.
#[allow(clippy::type_complexity)]
fn layout<'c, C: BlockCipher>(
    n: usize,
    ciphers: &[&'c C],
    ivs: &[&[u8]],
    lens: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<&'c C>, Zeroizing<Vec<u8>>) {
    let blocks: Vec<usize> = lens.iter().map(|len| len.div_ceil(n)).collect();
    let order = lane_order(&blocks);
    let lanes: Vec<&C> = order.iter().map(|&i| ciphers[i]).collect();
    let mut reg = Zeroizing::new(vec![0u8; lens.len() * n]);
    for (lane, &i) in order.iter().enumerate() {
        reg[lane * n..(lane + 1) * n].copy_from_slice(ivs[i]);
    }
    (blocks, order, lanes, reg)
}

/// The streams `data[order[lane]]` of the given lanes in lane order, each cut to bytes `range`.
fn lane_slices<'a>(
    data: &'a mut [&mut [u8]],
    order: &[usize],
    range: core::ops::Range<usize>,
) -> Vec<&'a mut [u8]> {
    let mut slots: Vec<Option<&mut [u8]>> =
        data.iter_mut().map(|d| d.get_mut(range.clone())).collect();
    order
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .collect()
}

/// Streams of one length in whole blocks, in their own order, straight to the cipher's feedback
/// kernel (`run` names the mode): no lane order and no per-lane buffers but the chaining values,
/// which a batch of short streams would otherwise pay for in allocations and a sort. False, with
/// nothing touched, where the cipher has no such kernel (the lane walk then does the job).
fn feedback_whole<C: BlockCipher>(
    n: usize,
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &mut [&mut [u8]],
    run: MakeRun,
) -> bool {
    let mut state = Zeroizing::new(Vec::with_capacity(ivs.len() * n));
    for iv in ivs {
        state.extend_from_slice(iv);
    }
    C::feedback_lanes(ciphers, &mut state, run(data))
}

/// Where a run of the cipher's feedback kernel that starts at the current block index can end: the
/// fewest `eligible` (whole, ordinary) blocks among the `live` lanes.
fn run_end(order: &[usize], eligible: &[usize], live: usize) -> usize {
    order[..live]
        .iter()
        .map(|&i| eligible[i])
        .min()
        .unwrap_or(0)
}

/// Wraps the lanes' slices of a run in the mode's [`Feedback`].
type MakeRun = for<'a, 'b> fn(&'a mut [&'b mut [u8]]) -> Feedback<'a, 'b>;

/// Offers block indices `index..end` of the first `live` lanes to [`BlockCipher::feedback_lanes`]
/// (`run` builds the mode's [`Feedback`] from the lanes' slices); true if the cipher ran them, which
/// leaves the lanes' chaining values in `state`. A declined offer is not repeated before `end`.
#[allow(clippy::too_many_arguments)]
fn offer_run<C: BlockCipher>(
    n: usize,
    lanes: &[&C],
    order: &[usize],
    (live, index, end): (usize, usize, usize),
    next_offer: &mut usize,
    state: &mut [u8],
    data: &mut [&mut [u8]],
    run: MakeRun,
) -> bool {
    if end <= index || index < *next_offer {
        return false;
    }
    *next_offer = end;
    let mut streams = lane_slices(data, &order[..live], index * n..end * n);
    streams.len() == live
        && C::feedback_lanes(&lanes[..live], &mut state[..live * n], run(&mut streams))
}

/// The bytes of block `index` of `stream` (the last one may be short).
fn block_range(n: usize, len: usize, index: usize) -> core::ops::Range<usize> {
    index * n..len.min((index + 1) * n)
}

/// `dst[..n] ^= src[..n]` as whole words for the 8- and 16-byte blocks of the ciphers here (the
/// callers are inlined with a constant `n`, so the match folds away).
#[inline(always)]
fn xor_block(dst: &mut [u8], src: &[u8], n: usize) {
    let (dst, src) = (&mut dst[..n], &src[..n]);
    if let (Ok(d), Ok(s)) = (
        <&mut [u8; 16]>::try_from(&mut *dst),
        <&[u8; 16]>::try_from(src),
    ) {
        *d = (u128::from_ne_bytes(*d) ^ u128::from_ne_bytes(*s)).to_ne_bytes();
    } else if let (Ok(d), Ok(s)) = (
        <&mut [u8; 8]>::try_from(&mut *dst),
        <&[u8; 8]>::try_from(src),
    ) {
        *d = (u64::from_ne_bytes(*d) ^ u64::from_ne_bytes(*s)).to_ne_bytes();
    } else {
        xor_in_place(dst, src);
    }
}

/// Runs `$body` (which uses the block size `$n`) with `$n` a constant for the usual block sizes, so
/// that the per-block copies and XORs in it compile to single word moves.
macro_rules! with_const_block_size {
    ($n:ident, $body:expr) => {
        match $n {
            8 => {
                let $n = 8;
                $body
            }
            16 => {
                let $n = 16;
                $body
            }
            _ => $body,
        }
    };
}

/// CBC-encrypts every `data[i]` (whole blocks) in place with `ciphers[i]` and the `n`-byte `ivs[i]`.
pub fn cbc_encrypt<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &mut [&mut [u8]],
) -> Result<()> {
    let n = check_streams(ciphers, ivs, data.iter().map(|d| d.len()), true)?;
    // Streams of one length go to the cipher's own multi-stream kernel whole, if it has one,
    // without the lane order and buffers of `layout` (allocations and a sort that cost a batch of
    // short streams a noticeable part of its time).
    let len = data.first().map_or(0, |d| d.len());
    if data.iter().all(|d| d.len() == len)
        && (C::cbc_encrypt_streams(ciphers, ivs, data)
            || feedback_whole(n, ciphers, ivs, data, |s| Feedback::CbcEncrypt(s)))
    {
        return Ok(());
    }
    let lens: Vec<usize> = data.iter().map(|d| d.len()).collect();
    let (blocks, order, lanes, mut state) = layout(n, ciphers, ivs, &lens);
    // The streams in lane order, each taken once (`order` is a permutation).
    let mut slots: Vec<Option<&mut [u8]>> = data.iter_mut().map(|d| Some(&mut **d)).collect();
    let mut by_lane: Vec<&mut [u8]> = order.iter().filter_map(|&i| slots[i].take()).collect();
    let from = cbc_encrypt_phases(n, &blocks, &order, &lanes, &mut state, &mut by_lane);
    with_const_block_size!(
        n,
        cbc_encrypt_lanes(n, from, &blocks, &order, &lanes, &mut state, &mut by_lane)
    );
    Ok(())
}

/// Streams of unequal lengths through the cipher's kernel: in lane order the streams still running
/// at any block index are a prefix, so between two consecutive stream ends they all have the same
/// number of blocks left, and that stretch is one kernel call (IVs: the last ciphertext blocks,
/// kept in `state`). Returns the block index reached: the end, or where the kernel declined (the
/// lane walk goes on from there).
fn cbc_encrypt_phases<C: BlockCipher>(
    n: usize,
    blocks: &[usize],
    order: &[usize],
    lanes: &[&C],
    state: &mut [u8],
    by_lane: &mut [&mut [u8]],
) -> usize {
    let (mut from, mut live) = (0, order.len());
    loop {
        live = live_lanes(order, blocks, live, from);
        if live == 0 {
            return from;
        }
        let to = blocks[order[live - 1]];
        let ivs: Vec<&[u8]> = state.chunks_exact(n).take(live).collect();
        let mut parts: Vec<&mut [u8]> = by_lane[..live]
            .iter_mut()
            .map(|d| &mut d[from * n..to * n])
            .collect();
        if !C::cbc_encrypt_streams(&lanes[..live], &ivs, &mut parts) {
            return from;
        }
        for (register, d) in state.chunks_exact_mut(n).zip(&by_lane[..live]) {
            register.copy_from_slice(&d[(to - 1) * n..to * n]);
        }
        from = to;
    }
}

/// The lane walk of [`cbc_encrypt`] from block index `from` (`state` holding the chaining values
/// there), over the streams in lane order: gather (XOR each stream's block into its lane register),
/// encipher all lanes, scatter (copy each register out as the ciphertext block).
#[inline(always)]
fn cbc_encrypt_lanes<C: BlockCipher>(
    n: usize,
    from: usize,
    blocks: &[usize],
    order: &[usize],
    lanes: &[&C],
    state: &mut [u8],
    by_lane: &mut [&mut [u8]],
) {
    let (mut live, mut index, mut next_offer) = (order.len(), from, from);
    loop {
        live = live_lanes(order, blocks, live, index);
        if live == 0 {
            break;
        }
        // The streams are already in lane order here, so the run is cut from `by_lane` directly
        // (offer_run's lane_slices does the reordering for the other modes).
        let end = run_end(order, blocks, live);
        if end > index && index >= next_offer {
            next_offer = end;
            let mut run: Vec<&mut [u8]> = by_lane[..live]
                .iter_mut()
                .map(|d| &mut d[index * n..end * n])
                .collect();
            if C::feedback_lanes(
                &lanes[..live],
                &mut state[..live * n],
                Feedback::CbcEncrypt(&mut run),
            ) {
                index = end;
                continue;
            }
        }
        let at = index * n;
        for (register, d) in state.chunks_exact_mut(n).zip(&by_lane[..live]) {
            xor_block(register, &d[at..], n);
        }
        C::encrypt_lanes(&lanes[..live], &mut state[..live * n]);
        for (register, d) in state.chunks_exact(n).zip(&mut by_lane[..live]) {
            d[at..at + n].copy_from_slice(register);
        }
        index += 1;
    }
}

/// Streams of at least this many blocks are CBC-decrypted on their own rather than in the lane walk
/// (measured crossover: 4 blocks for Kuznyechik, about 8 for Magma and AES).
const SOLO_DECRYPT_BLOCKS: usize = 8;

/// CBC-decrypts every `data[i]` (whole blocks) in place with `ciphers[i]` and the `n`-byte `ivs[i]`.
pub fn cbc_decrypt<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &mut [&mut [u8]],
) -> Result<()> {
    let n = check_streams(ciphers, ivs, data.iter().map(|d| d.len()), true)?;
    // CBC decryption is parallel within a stream, so a stream of several blocks goes through the
    // cipher's own multi-block path on its own (2-3x the lane walk at 16 x 512 B); the lane walk,
    // one block of every stream per cipher call, is for the streams too short to fill it.
    let solo = |len: usize| len / n >= SOLO_DECRYPT_BLOCKS;
    let mut short_ciphers = Vec::new();
    let mut short_ivs = Vec::new();
    let mut short_data: Vec<&mut [u8]> = Vec::new();
    for ((&c, &iv), d) in ciphers.iter().zip(ivs).zip(data.iter_mut()) {
        if solo(d.len()) {
            crate::mode::cbc::decrypt(c, iv, d)?;
        } else {
            short_ciphers.push(c);
            short_ivs.push(iv);
            short_data.push(&mut **d);
        }
    }
    if short_data.is_empty() {
        return Ok(());
    }
    let (ciphers, ivs, data) = (&short_ciphers[..], &short_ivs[..], &mut short_data[..]);
    let lens: Vec<usize> = data.iter().map(|d| d.len()).collect();
    let (blocks, order, lanes, mut prev) = layout(n, ciphers, ivs, &lens);
    // Holds plaintext after the XOR: wiped on drop.
    let mut work = Zeroizing::new(vec![0u8; order.len() * n]);
    let mut saved = vec![0u8; order.len() * n];
    with_const_block_size!(
        n,
        cbc_decrypt_lanes(
            n,
            &blocks,
            &order,
            &lanes,
            [&mut prev[..], &mut work[..], &mut saved[..]],
            data
        )
    );
    Ok(())
}

/// The lane walk of [`cbc_decrypt`]: `registers` are the previous ciphertext blocks (IVs first),
/// the work lanes and the saved ciphertext of this index.
#[inline(always)]
fn cbc_decrypt_lanes<C: BlockCipher>(
    n: usize,
    blocks: &[usize],
    order: &[usize],
    lanes: &[&C],
    registers: [&mut [u8]; 3],
    data: &mut [&mut [u8]],
) {
    let [prev, work, saved] = registers;
    let mut live = order.len();
    for index in 0.. {
        live = live_lanes(order, blocks, live, index);
        if live == 0 {
            break;
        }
        let at = index * n;
        for (register, &i) in work.chunks_exact_mut(n).zip(&order[..live]) {
            register.copy_from_slice(&data[i][at..at + n]);
        }
        saved[..live * n].copy_from_slice(&work[..live * n]);
        C::decrypt_lanes(&lanes[..live], &mut work[..live * n]);
        for ((register, p), &i) in work
            .chunks_exact_mut(n)
            .zip(prev.chunks_exact(n))
            .zip(&order[..live])
        {
            xor_block(register, p, n);
            data[i][at..at + n].copy_from_slice(register);
        }
        prev[..live * n].copy_from_slice(&saved[..live * n]);
    }
}

/// CFB with full-block segments (`s = m = n`): encrypts every `data[i]` (any length) in place.
pub fn cfb_encrypt<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &mut [&mut [u8]],
) -> Result<()> {
    cfb(ciphers, ivs, data, false)
}

/// CFB with full-block segments (`s = m = n`): decrypts every `data[i]` (any length) in place.
pub fn cfb_decrypt<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &mut [&mut [u8]],
) -> Result<()> {
    cfb(ciphers, ivs, data, true)
}

fn cfb<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &mut [&mut [u8]],
    decrypting: bool,
) -> Result<()> {
    let n = check_streams(ciphers, ivs, data.iter().map(|d| d.len()), false)?;
    let len = data.first().map_or(0, |d| d.len());
    let run: MakeRun = if decrypting {
        |s| Feedback::CfbDecrypt(s)
    } else {
        |s| Feedback::CfbEncrypt(s)
    };
    if len.is_multiple_of(n)
        && data.iter().all(|d| d.len() == len)
        && feedback_whole(n, ciphers, ivs, data, run)
    {
        return Ok(());
    }
    let lens: Vec<usize> = data.iter().map(|d| d.len()).collect();
    let (blocks, order, lanes, mut state) = layout(n, ciphers, ivs, &lens);
    // Holds ciphertext blocks while decrypting (public, but kept beside the key stream).
    let mut saved = Zeroizing::new(vec![0u8; order.len() * n]);
    with_const_block_size!(
        n,
        cfb_lanes(
            n,
            &lens,
            (&blocks, &order, &lanes),
            (&mut state, &mut saved),
            data,
            decrypting
        )
    );
    Ok(())
}

/// The lane walk of CFB: encipher every register (the previous ciphertext block, or the IV) into
/// the key stream, XOR it into each stream's block, and make the ciphertext the next register. Full
/// blocks move as whole blocks; only a stream's short last block goes byte by byte.
#[allow(clippy::type_complexity)]
#[inline(always)]
fn cfb_lanes<C: BlockCipher>(
    n: usize,
    lens: &[usize],
    (blocks, order, lanes): (&[usize], &[usize], &[&C]),
    (state, saved): (&mut [u8], &mut [u8]),
    data: &mut [&mut [u8]],
    decrypting: bool,
) {
    // Whole blocks per stream: a kernel run covers only those.
    let whole: Vec<usize> = lens.iter().map(|len| len / n).collect();
    let (mut live, mut index, mut next_offer) = (order.len(), 0, 0);
    loop {
        live = live_lanes(order, blocks, live, index);
        if live == 0 {
            break;
        }
        let end = run_end(order, &whole, live);
        let span = (live, index, end);
        let run: MakeRun = if decrypting {
            |s| Feedback::CfbDecrypt(s)
        } else {
            |s| Feedback::CfbEncrypt(s)
        };
        if offer_run(n, lanes, order, span, &mut next_offer, state, data, run) {
            index = end;
            continue;
        }
        let at = index * n;
        if decrypting {
            // Next register = this ciphertext; gather it before the key stream overwrites it.
            for (slot, &i) in saved.chunks_exact_mut(n).zip(&order[..live]) {
                let block = &data[i][block_range(n, lens[i], index)];
                slot[..block.len()].copy_from_slice(block);
            }
        }
        C::encrypt_lanes(&lanes[..live], &mut state[..live * n]);
        for ((register, slot), &i) in state
            .chunks_exact_mut(n)
            .zip(saved.chunks_exact(n))
            .zip(&order[..live])
        {
            if lens[i] >= at + n {
                let block = &mut data[i][at..at + n];
                xor_block(block, register, n);
                let next = if decrypting { slot } else { &*block };
                register.copy_from_slice(next);
            } else {
                // The short last block of this stream: no later register is needed.
                xor_in_place(&mut data[i][at..], register);
            }
        }
        index += 1;
    }
}

/// OMAC (CMAC) tags of `msgs[i]` under `ciphers[i]`, all `tag_len` bytes (`1..=n`; 8- or 16-byte blocks).
pub fn omac<C: BlockCipher>(
    ciphers: &[&C],
    msgs: &[&[u8]],
    tag_len: usize,
) -> Result<Vec<Vec<u8>>> {
    let n = common_block_size(ciphers, msgs.len())?;
    let constant = match n {
        8 => 0x1b,
        16 => 0x87,
        _ => {
            return Err(Error::InvalidParameter(
                "OMAC needs a 64- or 128-bit block cipher",
            ))
        }
    };
    check_tag_len(n, tag_len)?;
    let streams = msgs.len();
    // An empty message is one empty, padded block.
    let blocks: Vec<usize> = msgs.iter().map(|m| m.len().div_ceil(n).max(1)).collect();
    let order = lane_order(&blocks);
    let lanes: Vec<&C> = order.iter().map(|&i| ciphers[i]).collect();

    // Subkeys of every stream at once: R = E_K(0^n), K1 = R*x, K2 = K1*x.
    let mut k1 = Zeroizing::new(vec![0u8; streams * n]);
    C::encrypt_lanes(&lanes, &mut k1);
    let mut k2 = k1.clone();
    for lane in 0..streams {
        double(&mut k1[lane * n..(lane + 1) * n], constant);
        k2[lane * n..(lane + 1) * n].copy_from_slice(&k1[lane * n..(lane + 1) * n]);
        double(&mut k2[lane * n..(lane + 1) * n], constant);
    }

    let mut state = Zeroizing::new(vec![0u8; streams * n]);
    // Every block but the last of a message is a plain CBC-MAC step, which a kernel may run.
    let plain: Vec<usize> = blocks.iter().map(|b| b - 1).collect();
    let (mut live, mut index, mut next_offer) = (streams, 0, 0);
    loop {
        live = live_lanes(&order, &blocks, live, index);
        if live == 0 {
            break;
        }
        let end = run_end(&order, &plain, live);
        if end > index && index >= next_offer {
            next_offer = end;
            let run: Vec<&[u8]> = order[..live]
                .iter()
                .filter_map(|&i| msgs[i].get(index * n..end * n))
                .collect();
            if run.len() == live
                && C::feedback_lanes(
                    &lanes[..live],
                    &mut state[..live * n],
                    Feedback::CbcMac(&run),
                )
            {
                index = end;
                continue;
            }
        }
        for (lane, &i) in order[..live].iter().enumerate() {
            let msg = msgs[i];
            // index * n <= msg.len() here (an empty message has one empty block).
            let block = &msg[(index * n).min(msg.len())..msg.len().min((index + 1) * n)];
            let register = &mut state[lane * n..(lane + 1) * n];
            xor_in_place(register, block);
            if index + 1 == blocks[i] {
                if block.len() == n {
                    xor_in_place(register, &k1[lane * n..(lane + 1) * n]);
                } else {
                    register[block.len()] ^= 0x80;
                    xor_in_place(register, &k2[lane * n..(lane + 1) * n]);
                }
            }
        }
        C::encrypt_lanes(&lanes[..live], &mut state[..live * n]);
        index += 1;
    }

    let mut tags = vec![Vec::new(); streams];
    for (lane, &i) in order.iter().enumerate() {
        tags[i] = state[lane * n..lane * n + tag_len].to_vec();
    }
    Ok(tags)
}
