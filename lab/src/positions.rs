//! Which positions of held-out games the lab's commands read: the split of games into a fitting
//! half and a test half that every fit and every held-out measurement share.

/// Whether the game with this key is in the test half of the fits' split (bit 32 of the key; the
/// fit never sees these games, so `eval --fit-test-half` measures a fitted model on them).
pub fn in_test_half(key: u64) -> bool {
    (key >> 32) & 1 == 1
}
