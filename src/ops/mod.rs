//! Operations on arrays, one module per shader family.

pub(crate) mod conv;
pub(crate) mod elementwise;
pub(crate) mod histogram;
pub(crate) mod index;
pub(crate) mod linalg;
pub(crate) mod manip;
pub(crate) mod random;
pub(crate) mod reduce;
pub(crate) mod scan;
pub(crate) mod sort;
