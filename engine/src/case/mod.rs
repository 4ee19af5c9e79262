//! A case as the case base encodes it, shared by every stage that reads cases (the games'
//! reader, the case base, retrieval and reuse): its board in four bit planes with the thesis'
//! similarity between two ([`planes`]), and its move in 16 bits ([`moves`]).

pub mod kernel;
pub mod moves;
pub mod planes;

pub use moves::CaseMove;
pub(crate) use planes::MAX_SCORE;
pub use planes::{Material, MaterialQuery, Planes, piece_score, similarity, similarity_naive};
