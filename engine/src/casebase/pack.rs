//! Packing a case base for distribution: the sections that zstd compresses poorly as stored are
//! rearranged in place so that it compresses them well, and the loader undoes it right after
//! decompressing. Nothing is lost or approximated: a packed file has the same length, and the
//! checksum in its trailer is the unpacked file's, so every load proves the round trip.
//!
//! | section | stored as | packed as |
//! |---|---|---|
//! | occurrences, index directory | ascending `u32` offsets | differences from the previous |
//! | position index | 16-byte entries sorted by key | keys as differences, then byte planes |
//! | case records | 12-byte records | byte planes (all first bytes, then all second …) |
//! | pattern strengths | `f32` | byte planes |
//! | policy keys | ascending `u32` | differences from the previous |
//! | policy rows | `i16` | byte planes |
//!
//! The header's reserved word (offset 12) says whether a file is packed ([`PACKED`]). Packing
//! the embedded default takes it from 62.1 to 52.8 MB compressed (`casebases/README.md`).

use std::ops::Range;

use super::format::{HEADER_LEN_V3, Header, TRAILER_LEN, ZSTD_MAGIC, header_len};

/// Header word at offset 12 of a packed file (0 in an unpacked one).
pub(crate) const PACKED: u32 = 1;
const FLAG_AT: usize = 12;

/// Whether `bytes` (a case-base file) is packed.
pub(crate) fn is_packed(bytes: &[u8]) -> bool {
    bytes
        .get(FLAG_AT..FLAG_AT + 4)
        .is_some_and(|w| w == PACKED.to_le_bytes())
}

/// Where the packed sections lie in a file, checked against its length.
struct Sections {
    occ: Range<usize>,
    dir: Range<usize>,
    index: Range<usize>,
    metas: Range<usize>,
    strengths: Range<usize>,
    policy_keys: Range<usize>,
    policy_rows: Range<usize>,
}

fn sections(bytes: &[u8]) -> Result<Sections, String> {
    if bytes.len() < HEADER_LEN_V3 + TRAILER_LEN {
        return Err("shorter than the header".into());
    }
    let head_len = header_len(Header::decode(&bytes[..HEADER_LEN_V3]).version);
    if bytes.len() < head_len + TRAILER_LEN {
        return Err("shorter than the header".into());
    }
    let h = Header::decode(&bytes[..head_len]);
    let body = (bytes.len() - TRAILER_LEN) as u64;
    let section = |what: &str, off: u64, width: u64, n: Option<u64>| {
        let n = n.ok_or_else(|| format!("{what}: count out of range"))?;
        let end = n
            .checked_mul(width)
            .and_then(|len| len.checked_add(off))
            .filter(|&end| end <= body && off >= head_len as u64)
            .ok_or_else(|| format!("{what} section outside the file"))?;
        Ok::<_, String>(off as usize..end as usize)
    };
    Ok(Sections {
        occ: section("occurrences", h.occ_off, 4, h.boards.checked_add(1))?,
        dir: section("index directory", h.dir_off, 4, h.dir_entries())?,
        index: section("position index", h.index_off, 16, Some(h.index_entries))?,
        metas: section("case records", h.metas_off, 12, Some(h.cases))?,
        strengths: section("pattern strengths", h.strengths_off, 4, Some(h.patterns))?,
        policy_keys: match h.policy_parts() {
            Some([(off, _), _, _]) if h.policy_keys > 0 => {
                section("policy keys", off, 4, Some(h.policy_keys))?
            }
            _ => 0..0,
        },
        policy_rows: match h.policy_parts() {
            Some([_, _, (off, len)]) if h.policy_keys > 0 => {
                section("policy rows", off, 2, Some(len / 2))?
            }
            _ => 0..0,
        },
    })
}

fn set_flag(bytes: &mut [u8], flag: u32) {
    bytes[FLAG_AT..FLAG_AT + 4].copy_from_slice(&flag.to_le_bytes());
}

/// Packs an unpacked file in place. Fails on a file whose sections lie outside it, or that is
/// packed already.
pub fn pack(bytes: &mut [u8]) -> Result<(), String> {
    if is_packed(bytes) {
        return Err("already packed".into());
    }
    let s = sections(bytes)?;
    differences(&mut bytes[s.occ], 4, 4);
    differences(&mut bytes[s.dir], 4, 4);
    differences(&mut bytes[s.index.clone()], 16, 8);
    to_planes(&mut bytes[s.index], 16);
    to_planes(&mut bytes[s.metas], 12);
    to_planes(&mut bytes[s.strengths], 4);
    differences(&mut bytes[s.policy_keys], 4, 4);
    to_planes(&mut bytes[s.policy_rows], 2);
    set_flag(bytes, PACKED);
    Ok(())
}

/// Undoes [`pack`] in place; leaves an unpacked file as it is. Whether the result is the
/// original is for the checksum to say.
pub(crate) fn unpack(bytes: &mut [u8]) -> Result<(), String> {
    if !is_packed(bytes) {
        return Ok(());
    }
    let s = sections(bytes)?;
    from_planes(&mut bytes[s.policy_rows], 2);
    running_sums(&mut bytes[s.policy_keys], 4, 4);
    from_planes(&mut bytes[s.strengths], 4);
    from_planes(&mut bytes[s.metas], 12);
    from_planes(&mut bytes[s.index.clone()], 16);
    running_sums(&mut bytes[s.index], 16, 8);
    running_sums(&mut bytes[s.dir], 4, 4);
    running_sums(&mut bytes[s.occ], 4, 4);
    set_flag(bytes, 0);
    Ok(())
}

/// A case-base file's bytes as stored in memory: decompressed if they are zstd.
pub fn decompressed(raw: Vec<u8>) -> Result<Vec<u8>, String> {
    if raw.starts_with(&ZSTD_MAGIC) {
        zstd::decode_all(&raw[..]).map_err(|e| format!("zstd stream: {e}"))
    } else {
        Ok(raw)
    }
}

/// `unpacked` (a whole file) packed and compressed at zstd `level` on `threads` threads.
/// Loading the result ([`super::CaseBase::from_bytes`]) unpacks it and checks it against the
/// unpacked file's checksum.
pub fn pack_and_compress(unpacked: &[u8], level: i32, threads: u32) -> Result<Vec<u8>, String> {
    let mut bytes = unpacked.to_vec();
    pack(&mut bytes)?;
    let zstd_error = |e: std::io::Error| format!("zstd: {e}");
    let mut encoder = zstd::Encoder::new(Vec::new(), level).map_err(zstd_error)?;
    encoder.multithread(threads).map_err(zstd_error)?;
    std::io::Write::write_all(&mut encoder, &bytes).map_err(zstd_error)?;
    encoder.finish().map_err(zstd_error)
}

/// The little-endian integer of `width` bytes (4 or 8) at the start of record `i` of `stride`
/// bytes.
fn field(b: &[u8], stride: usize, width: usize, i: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..width].copy_from_slice(&b[stride * i..stride * i + width]);
    u64::from_le_bytes(x)
}

fn put_field(b: &mut [u8], stride: usize, width: usize, i: usize, v: u64) {
    b[stride * i..stride * i + width].copy_from_slice(&v.to_le_bytes()[..width]);
}

/// Each record's leading field minus the previous record's (wrapping at `width` bytes), from
/// the end: ascending offsets and sorted keys become small numbers.
fn differences(b: &mut [u8], stride: usize, width: usize) {
    for i in (1..b.len() / stride).rev() {
        let d = field(b, stride, width, i).wrapping_sub(field(b, stride, width, i - 1));
        put_field(b, stride, width, i, d);
    }
}

/// The inverse of [`differences`]: running sums.
fn running_sums(b: &mut [u8], stride: usize, width: usize) {
    for i in 1..b.len() / stride {
        let v = field(b, stride, width, i).wrapping_add(field(b, stride, width, i - 1));
        put_field(b, stride, width, i, v);
    }
}

/// Records of `width` bytes rearranged as `width` planes: every record's byte 0, then byte 1 …
fn to_planes(b: &mut [u8], width: usize) {
    let n = b.len() / width;
    let mut out = vec![0u8; b.len()];
    for (r, rec) in b.chunks_exact(width).enumerate() {
        for (j, &x) in rec.iter().enumerate() {
            out[j * n + r] = x;
        }
    }
    b.copy_from_slice(&out);
}

fn from_planes(b: &mut [u8], width: usize) {
    let n = b.len() / width;
    let mut out = vec![0u8; b.len()];
    for (r, rec) in out.chunks_exact_mut(width).enumerate() {
        for (j, x) in rec.iter_mut().enumerate() {
            *x = b[j * n + r];
        }
    }
    b.copy_from_slice(&out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_and_differences_invert() {
        let original: Vec<u8> = (0..16 * 37).map(|i| (i * 7 + i / 5) as u8).collect();
        let mut b = original.clone();
        differences(&mut b, 16, 8);
        to_planes(&mut b, 16);
        assert_ne!(b, original);
        from_planes(&mut b, 16);
        running_sums(&mut b, 16, 8);
        assert_eq!(b, original);
        let mut b = original.clone();
        differences(&mut b, 4, 4);
        assert_eq!(b[..4], original[..4]);
        let (x0, x1) = (field(&original, 4, 4, 0), field(&original, 4, 4, 1));
        assert_eq!(field(&b, 4, 4, 1), (x1.wrapping_sub(x0)) & 0xffff_ffff);
        running_sums(&mut b, 4, 4);
        assert_eq!(b, original);
        let mut b = original[..12 * 40].to_vec();
        to_planes(&mut b, 12);
        assert_eq!(
            b[1], original[12],
            "plane 0 holds every record's first byte"
        );
        from_planes(&mut b, 12);
        assert_eq!(b, original[..12 * 40]);
    }
}
