//! Compressed-row storage of a scene's H, W⁻¹Hᵀ and Delassus matrix D = H W⁻¹ Hᵀ (the
//! [`SPARSE`](super::layout::SPARSE) layout), chosen at assembly when it stores at most half
//! of their dense entries: a cradle's or a chain's D is tridiagonal and its H bidiagonal, so a
//! step costs O(m) instead of O(m²) (m rows).
//!
//! Two row patterns in compressed sparse rows (Saad, *Iterative Methods for Sparse Linear
//! Systems*, 2nd ed., SIAM 2003, §3.4): P_H, m rows over the n dofs, the j with H_rj ≠ 0 or
//! (W⁻¹Hᵀ)_jr ≠ 0 (H and the transpose of W⁻¹Hᵀ are stored by it); P_D, m rows over m, the k
//! with D_rk ≠ 0, and the diagonal. In the batch's `row_kinds`, after the scene's m kinds:
//! ```text
//!   h_start (m + 1)   h_cols (nh)   d_start (m + 1)   d_cols (nd)
//! ```
//! and for p in `h_start[r] .. h_start[r + 1]` its operators hold `H_{r, h_cols[p]}` at `o.h + p`
//! and `(W⁻¹Hᵀ)_{h_cols[p], r}` at `o.w_inv_ht + p`; for p in `d_start[r] .. d_start[r + 1]`,
//! `D_{r, d_cols[p]}` at `o.delassus + p`. Columns ascend within a row, so every sum runs in the
//! dense layout's order without its zero terms (the same bits, but for the sign of a zero).

use std::ops::Range;

use nalgebra::DMatrix;

/// The fewest rows of a scene the GPU engine stores compressed: below, the kernel's dense
/// loops over a scene of fixed sizes have constant trip counts and unroll, which on lavapipe
/// beats the compressed loops up to about 10 rows (Newton's cradles: BENCHMARKS.md §4.10).
/// The CPU lanes gain from compression at any size.
pub const GPU_COMPRESSED_FROM: usize = 12;

/// One matrix's row pattern: row r's entries are at positions `start[r] .. start[r + 1]`, the
/// column of position p is `cols[p]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPattern {
    /// Where each row's entries start, and their end (rows + 1).
    pub start: Vec<u32>,
    /// The column of each entry, ascending within a row.
    pub cols: Vec<u32>,
}

impl RowPattern {
    /// The pattern of `rows` × `cols` entries where `stored(i, j)` holds.
    fn of(rows: usize, cols: usize, stored: impl Fn(usize, usize) -> bool) -> Self {
        let mut pattern = Self {
            start: vec![0],
            cols: Vec::new(),
        };
        for i in 0..rows {
            pattern
                .cols
                .extend((0..cols).filter(|&j| stored(i, j)).map(|j| j as u32));
            pattern.start.push(pattern.cols.len() as u32);
        }
        pattern
    }

    /// The number of entries stored.
    pub fn entries(&self) -> usize {
        self.cols.len()
    }

    /// The stored entries of `mat` in order: `at(mat, r, col)` of each (r, col).
    fn values<'a>(&'a self, at: impl Fn(usize, usize) -> f64 + Copy + 'a) -> impl Iterator<Item = f64> + 'a {
        (0..self.start.len() - 1).flat_map(move |r| {
            let span = self.start[r] as usize..self.start[r + 1] as usize;
            self.cols[span].iter().map(move |&j| at(r, j as usize))
        })
    }
}

/// A scene's patterns: P_H of H and (W⁻¹Hᵀ)ᵀ, P_D of its Delassus matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compressed {
    /// P_H (m × n).
    pub h: RowPattern,
    /// P_D (m × m), with the diagonal.
    pub d: RowPattern,
}

impl Compressed {
    /// The patterns of H (m × n), W⁻¹Hᵀ (n × m) and D (m × m) when they store at most half of
    /// the dense entries (m n twice and m²); `None`: the scene is kept dense.
    pub fn of(h: &DMatrix<f64>, winv_ht: &DMatrix<f64>, delassus: &DMatrix<f64>) -> Option<Self> {
        let (m, n) = h.shape();
        let patterns = Self {
            h: RowPattern::of(m, n, |r, j| h[(r, j)] != 0.0 || winv_ht[(j, r)] != 0.0),
            d: RowPattern::of(m, m, |r, k| r == k || delassus[(r, k)] != 0.0),
        };
        let (stored, dense) = (2 * patterns.h.entries() + patterns.d.entries(), 2 * m * n + m * m);
        (2 * stored <= dense).then_some(patterns)
    }

    /// The patterns as the batch stores them after the row kinds.
    pub fn encode(&self) -> Vec<u32> {
        [&self.h.start, &self.h.cols, &self.d.start, &self.d.cols]
            .into_iter()
            .flatten()
            .copied()
            .collect()
    }

    /// H's stored entries.
    pub fn h_values<'a>(&'a self, h: &'a DMatrix<f64>) -> impl Iterator<Item = f64> + 'a {
        self.h.values(|r, j| h[(r, j)])
    }

    /// W⁻¹Hᵀ's stored entries (its transpose's, by P_H).
    pub fn winv_ht_values<'a>(&'a self, winv_ht: &'a DMatrix<f64>) -> impl Iterator<Item = f64> + 'a {
        self.h.values(|r, j| winv_ht[(j, r)])
    }

    /// D's stored entries.
    pub fn delassus_values<'a>(&'a self, delassus: &'a DMatrix<f64>) -> impl Iterator<Item = f64> + 'a {
        self.d.values(|r, k| delassus[(r, k)])
    }
}

/// The length of a SPARSE scene's patterns in `row_kinds` (m rows, nh and nd entries).
pub fn encoded_len(m: usize, h_entries: usize, delassus_entries: usize) -> usize {
    2 * (m + 1) + h_entries + delassus_entries
}

/// A B. Where at most half of A's entries are nonzero, each entry is summed over the nonzeros
/// of A's row in ascending order: O(nnz(A) · cols(B)) instead of O(rows · cols(A) · cols(B)),
/// what makes a scene of many bodies cheap to assemble (its W⁻¹ diagonal, its H a few entries
/// per row); else nalgebra's product (a dense W⁻¹ keeps the bits it had).
pub fn product(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    if 2 * a.iter().filter(|&&x| x != 0.0).count() > a.len() {
        return a * b;
    }
    let mut out = DMatrix::zeros(a.nrows(), b.ncols());
    let mut row = Vec::with_capacity(a.ncols());
    for i in 0..a.nrows() {
        row.clear();
        row.extend((0..a.ncols()).filter(|&j| a[(i, j)] != 0.0).map(|j| (j, a[(i, j)])));
        for k in 0..b.ncols() {
            out[(i, k)] = row.iter().fold(0.0, |sum, &(j, x)| sum + x * b[(j, k)]);
        }
    }
    out
}

/// W⁻¹ of an iteration (or mass) matrix: 1/W_ii on the diagonal where W is diagonal and
/// larger than 4 × 4 (the values nalgebra's LU inverse gives it, without its O(n³)), else
/// nalgebra's inverse; `None` when W is singular.
pub fn inverse(w: DMatrix<f64>) -> Option<DMatrix<f64>> {
    let n = w.nrows();
    let diagonal = n > 4 && (0..n).all(|j| (0..n).all(|i| i == j || w[(i, j)] == 0.0));
    if !diagonal {
        return w.try_inverse();
    }
    let d = w.diagonal();
    d.iter()
        .all(|&x| x != 0.0)
        .then(|| DMatrix::from_diagonal(&d.map(|x| 1.0 / x)))
}

/// Where a matrix keeps row r's entries: every column in a dense row-major matrix of `Dense`
/// columns, or a compressed row's (a view of a [`RowPattern`] in `row_kinds`). The kernel's
/// `row_span`, `row_col`.
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a> {
    /// Row-major with this many columns.
    Dense(usize),
    /// By a row pattern: its starts and columns.
    Compressed(&'a [u32], &'a [u32]),
}

impl<'a> Rows<'a> {
    /// P_H and P_D of a SPARSE scene of m rows and `h_entries` entries in P_H, read from
    /// `encoded`, what follows its row kinds ([`Compressed::encode`]).
    pub fn read(encoded: &'a [u32], m: usize, h_entries: usize) -> (Self, Self) {
        let (h_start, rest) = encoded.split_at(m + 1);
        let (h_cols, rest) = rest.split_at(h_entries);
        let (d_start, d_cols) = rest.split_at(m + 1);
        (Self::Compressed(h_start, h_cols), Self::Compressed(d_start, d_cols))
    }

    /// The positions of row r's entries.
    #[inline(always)]
    pub fn span(&self, r: usize) -> Range<usize> {
        match *self {
            Self::Dense(cols) => r * cols..(r + 1) * cols,
            Self::Compressed(start, _) => start[r] as usize..start[r + 1] as usize,
        }
    }

    /// The column of position p (in row r).
    #[inline(always)]
    pub fn col(&self, r: usize, p: usize) -> usize {
        match *self {
            Self::Dense(cols) => p - r * cols,
            Self::Compressed(_, cols) => cols[p] as usize,
        }
    }

    /// The position of entry (r, k), if stored.
    #[inline(always)]
    pub fn find(&self, r: usize, k: usize) -> Option<usize> {
        match *self {
            Self::Dense(cols) => Some(r * cols + k),
            Self::Compressed(..) => self.span(r).find(|&p| self.col(r, p) == k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of three unit masses and two gaps y_r = q_{r+1} − q_r: H bidiagonal, D
    /// tridiagonal.
    fn chain() -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
        let h = DMatrix::from_row_slice(2, 3, &[-1.0, 1.0, 0.0, 0.0, -1.0, 1.0]);
        let winv_ht = h.transpose();
        let d = &h * &winv_ht;
        (h, winv_ht, d)
    }

    #[test]
    fn a_chain_is_stored_by_its_bands_and_read_back_entry_by_entry() {
        let (h, winv_ht, d) = chain();
        // Dense: 2·6 + 4 = 16 entries; compressed 2·4 + 4 = 12 > 8: kept dense.
        assert!(Compressed::of(&h, &winv_ht, &d).is_none());
        // Ten masses, nine gaps: 2·18 + 25 = 61 of 2·90 + 81 = 261.
        let mut h = DMatrix::zeros(9, 10);
        for r in 0..9 {
            h[(r, r)] = -1.0;
            h[(r, r + 1)] = 1.0;
        }
        let (winv_ht, d) = (h.transpose() * 0.5, &h * h.transpose() * 0.5);
        let c = Compressed::of(&h, &winv_ht, &d).expect("a chain compresses");
        assert_eq!((c.h.entries(), c.d.entries()), (18, 25));
        let encoded = c.encode();
        assert_eq!(encoded.len(), encoded_len(9, 18, 25));
        let (ph, pd) = Rows::read(&encoded, 9, 18);
        let (hv, wv, dv): (Vec<f64>, Vec<f64>, Vec<f64>) = (
            c.h_values(&h).collect(),
            c.winv_ht_values(&winv_ht).collect(),
            c.delassus_values(&d).collect(),
        );
        for r in 0..9 {
            for j in 0..10 {
                let stored = ph.find(r, j).map_or(0.0, |p| hv[p]);
                assert_eq!(stored, h[(r, j)], "H at ({r}, {j})");
                assert_eq!(ph.find(r, j).map_or(0.0, |p| wv[p]), winv_ht[(j, r)]);
            }
            for k in 0..9 {
                assert_eq!(pd.find(r, k).map_or(0.0, |p| dv[p]), d[(r, k)], "D at ({r}, {k})");
            }
            // Columns ascend: the sums keep the dense order.
            assert!(
                ph.span(r)
                    .zip(ph.span(r).skip(1))
                    .all(|(a, b)| ph.col(r, a) < ph.col(r, b))
            );
        }
        // The dense view of the same matrix reads the same entries.
        let dense = Rows::Dense(9);
        assert_eq!(dense.span(2), 18..27);
        assert_eq!((dense.col(2, 20), dense.find(2, 3)), (2, Some(21)));
    }

    #[test]
    fn sparse_products_and_diagonal_inverses_give_nalgebras_values() {
        // A diagonal W of 6 masses: 1/W_ii, bit for bit what the LU inverse gives.
        let w = DMatrix::from_diagonal(&nalgebra::DVector::from_fn(6, |i, _| 0.1 + 0.37 * i as f64));
        let (fast, lu) = (inverse(w.clone()).unwrap(), w.clone().try_inverse().unwrap());
        assert_eq!(fast.map(|x| (x + 0.0).to_bits()), lu.map(|x| (x + 0.0).to_bits()));
        let mut singular = w.clone();
        singular[(2, 2)] = 0.0;
        assert!(inverse(singular).is_none());
        // A bidiagonal H times W⁻¹Hᵀ: the chain's tridiagonal D, as nalgebra computes it.
        let mut h = DMatrix::zeros(5, 6);
        for r in 0..5 {
            h[(r, r)] = -1.0 - 0.1 * r as f64;
            h[(r, r + 1)] = 1.0;
        }
        let winv_ht = product(&fast, &h.transpose());
        assert_eq!(winv_ht, &lu * h.transpose());
        let d = product(&h, &winv_ht);
        assert!((&d - &h * &winv_ht).amax() <= 1e-15 * d.amax());
        assert_eq!(d[(0, 2)], 0.0);
        // A dense left factor: nalgebra's product itself.
        let dense = DMatrix::from_fn(3, 3, |i, j| 1.0 + (i * 3 + j) as f64 / 7.0);
        assert_eq!(
            product(&dense, &h.columns(0, 3).transpose()),
            &dense * h.columns(0, 3).transpose()
        );
    }
}
