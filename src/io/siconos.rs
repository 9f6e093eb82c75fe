//! Siconos's text formats, read with the same whitespace-token rules as its `fscanf` readers.
//!
//! - A NumericsMatrix: `storageType size0 size1`, then for dense storage (0) `size0 size1`
//!   again and the entries **column-major**; for sparse-block storage (1) `nbblocks`,
//!   the block-row and block-column counts, the cumulative block sizes, `filled1 filled2`,
//!   the CSR-style block-row pointers and block-column indices, then each block (its number,
//!   then its entries column-major).
//! - An LCP file: `n`, the NumericsMatrix M, then q; any text after q is ignored.
//! - An MLCP file: `isStorageType1 isStorageType2 n m`; with storage 1, the cumulative block
//!   rows (0 … n+m), one `isComp` flag per block, the NumericsMatrix M ((n+m)²) and q; with
//!   storage 2, the blocks A (n×n), B (m×m), C (n×m), D (m×n) written **row by row**, then a
//!   and b. When a file has both, they must agree.
//! - A friction-contact file: `d n_c`, the NumericsMatrix W (dense, sparse-block, or sparse:
//!   storage 2, an origin code and CSparse's `cs_print` of a compressed-column matrix), q
//!   and μ; anything after μ is ignored.
//! - A `.ref` trajectory: `rows cols`, then the rows.

use std::path::Path;

use nalgebra::{DMatrix, DVector};

use crate::error::{Error, Result};
use crate::numerics::friction::FrictionContactProblem;
use crate::numerics::{LinearComplementarityProblem, MixedLinearComplementarityProblem};

/// A cursor over the whitespace-separated tokens of one file.
struct Tokens<'a> {
    file: String,
    iter: std::str::SplitWhitespace<'a>,
}

impl<'a> Tokens<'a> {
    fn new(file: &str, text: &'a str) -> Self {
        Self {
            file: file.into(),
            iter: text.split_whitespace(),
        }
    }

    fn error(&self, reason: String) -> Error {
        Error::Parse {
            file: self.file.clone(),
            reason,
        }
    }

    fn number(&mut self, what: &str) -> Result<f64> {
        let token = self
            .iter
            .next()
            .ok_or_else(|| self.error(format!("unexpected end of file reading {what}")))?;
        token
            .parse()
            .map_err(|_| self.error(format!("expected a number for {what}, found `{token}`")))
    }

    fn count(&mut self, what: &str) -> Result<usize> {
        let x = self.number(what)?;
        // Sizes beyond 10⁷ are not LCP test problems but corrupt files (and would abort on allocation).
        if x >= 0.0 && x.fract() == 0.0 && x <= 1e7 {
            Ok(x as usize)
        } else {
            Err(self.error(format!("expected a non-negative integer for {what}, found {x}")))
        }
    }

    fn counts(&mut self, what: &str, len: usize) -> Result<Vec<usize>> {
        (0..len).map(|_| self.count(what)).collect()
    }

    fn flag(&mut self, what: &str) -> Result<bool> {
        match self.count(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(self.error(format!("expected 0 or 1 for {what}, found {other}"))),
        }
    }

    /// A dense matrix written row by row.
    fn rows(&mut self, what: &str, rows: usize, cols: usize) -> Result<DMatrix<f64>> {
        let values = self.vector(what, rows * cols)?;
        Ok(DMatrix::from_row_slice(rows, cols, values.as_slice()))
    }

    fn vector(&mut self, what: &str, len: usize) -> Result<DVector<f64>> {
        let values = (0..len).map(|_| self.number(what)).collect::<Result<Vec<_>>>()?;
        Ok(DVector::from_vec(values))
    }

    /// A NumericsMatrix of the given expected shape.
    fn numerics_matrix(&mut self, rows: usize, cols: usize) -> Result<DMatrix<f64>> {
        let storage = self.count("storage type")?;
        let (size0, size1) = (self.count("size0")?, self.count("size1")?);
        if (size0, size1) != (rows, cols) || rows.saturating_mul(cols) > 100_000_000 {
            return Err(self.error(format!(
                "matrix is {size0}x{size1}, expected {rows}x{cols} (at most 10⁸ entries)"
            )));
        }
        match storage {
            0 => self.dense(rows, cols),
            1 => self.sparse_block(rows, cols),
            2 => self.sparse(rows, cols),
            other => Err(self.error(format!(
                "storage type {other} is not supported (0 dense, 1 sparse block, 2 sparse)"
            ))),
        }
    }

    fn dense(&mut self, rows: usize, cols: usize) -> Result<DMatrix<f64>> {
        let (r, c) = (self.count("rows")?, self.count("cols")?);
        if (r, c) != (rows, cols) {
            return Err(self.error(format!("dense block is {r}x{c}, expected {rows}x{cols}")));
        }
        let values = self.vector("dense entries", rows * cols)?;
        Ok(DMatrix::from_column_slice(rows, cols, values.as_slice()))
    }

    /// The next token, which must be `word`.
    fn word(&mut self, word: &str) -> Result<()> {
        match self.iter.next() {
            Some(token) if token == word => Ok(()),
            Some(token) => Err(self.error(format!("expected `{word}`, found `{token}`"))),
            None => Err(self.error(format!("unexpected end of file, expected `{word}`"))),
        }
    }

    /// Sparse storage: the origin code, then CSparse's `cs_print` of a compressed-column
    /// matrix: a banner line, `m-by-n, nzmax: … nnz: …, 1-norm: …`, then per column
    /// `col j : locations a to b` and its `row : value` lines.
    fn sparse(&mut self, rows: usize, cols: usize) -> Result<DMatrix<f64>> {
        self.count("sparse origin")?;
        // Skip the banner up to the shape.
        let shape = format!("{rows}-by-{cols},");
        loop {
            match self.iter.next() {
                Some(token) if token == shape => break,
                Some(token) if token.ends_with(',') && token.contains("-by-") => {
                    return Err(self.error(format!("sparse matrix is {token} expected {shape}")));
                }
                Some(_) => {}
                None => return Err(self.error(format!("no `{shape}` line in the sparse matrix"))),
            }
        }
        self.word("nzmax:")?;
        self.count("nzmax")?;
        self.word("nnz:")?;
        let nnz = match self.iter.next().map(|t| (t, t.trim_end_matches(',').parse::<f64>())) {
            Some((_, Ok(x))) => x,
            Some((t, Err(_))) => return Err(self.error(format!("expected nnz, found `{t}`"))),
            None => return Err(self.error("unexpected end of file reading nnz".into())),
        };
        if nnz < 0.0 {
            return Err(self.error("sparse matrix in triplet form: only compressed columns are read".into()));
        }
        self.word("1-norm:")?;
        self.number("1-norm")?;
        let mut m = DMatrix::zeros(rows, cols);
        for col in 0..cols {
            self.word("col")?;
            if self.count("column")? != col {
                return Err(self.error(format!("expected column {col}")));
            }
            self.word(":")?;
            self.word("locations")?;
            let first = self.count("first location")?;
            self.word("to")?;
            // An empty column prints `a to a−1`, which may be −1.
            let last = self.number("last location")?;
            let entries = (last + 1.0 - first as f64).max(0.0) as usize;
            for _ in 0..entries {
                let row = self.count("row")?;
                self.word(":")?;
                let value = self.number("value")?;
                if row >= rows {
                    return Err(self.error(format!("row {row} out of range in column {col}")));
                }
                m[(row, col)] = value;
            }
        }
        Ok(m)
    }

    fn sparse_block(&mut self, rows: usize, cols: usize) -> Result<DMatrix<f64>> {
        let nbblocks = self.count("nbblocks")?;
        let (block_rows, block_cols) = (self.count("blocknumber0")?, self.count("blocknumber1")?);
        let row_ends = self.counts("blocksize0", block_rows)?;
        let col_ends = self.counts("blocksize1", block_cols)?;
        let increasing = |ends: &[usize]| ends.first().is_some_and(|&e| e > 0) && ends.windows(2).all(|w| w[0] < w[1]);
        if row_ends.last() != Some(&rows)
            || col_ends.last() != Some(&cols)
            || !increasing(&row_ends)
            || !increasing(&col_ends)
        {
            return Err(self.error("block sizes must increase to the matrix size".into()));
        }
        let (filled1, filled2) = (self.count("filled1")?, self.count("filled2")?);
        let row_ptr = self.counts("index1_data", filled1)?;
        let col_idx = self.counts("index2_data", filled2)?;
        let pointers_ok = row_ptr.first() == Some(&0)
            && row_ptr.windows(2).all(|w| w[0] <= w[1])
            && row_ptr.last() == Some(&nbblocks);
        if filled2 != nbblocks || filled1 != block_rows + 1 || !pointers_ok {
            return Err(self.error("inconsistent sparse-block counts".into()));
        }
        let mut seen = std::collections::BTreeSet::new();
        let start = |ends: &[usize], k: usize| if k == 0 { 0 } else { ends[k - 1] };
        let mut m = DMatrix::zeros(rows, cols);
        for block_row in 0..block_rows {
            for k in row_ptr[block_row]..row_ptr[block_row + 1] {
                let block_col = *col_idx
                    .get(k)
                    .filter(|&&c| c < block_cols)
                    .ok_or_else(|| self.error("block index out of range".into()))?;
                if self.count("block number")? != k || !seen.insert((block_row, block_col)) {
                    return Err(self.error(format!("block {k}: wrong number, or a block stored twice")));
                }
                let (r0, c0) = (start(&row_ends, block_row), start(&col_ends, block_col));
                let (nr, nc) = (row_ends[block_row] - r0, col_ends[block_col] - c0);
                let values = self.vector("block entries", nr * nc)?;
                m.view_mut((r0, c0), (nr, nc)).copy_from_slice(values.as_slice());
            }
        }
        Ok(m)
    }
}

/// Parses an LCP in Siconos's `.dat` format; `file` names the source in errors.
pub fn parse_lcp(file: &str, text: &str) -> Result<LinearComplementarityProblem> {
    let mut tokens = Tokens::new(file, text);
    let n = tokens.count("n")?;
    let m = tokens.numerics_matrix(n, n)?;
    let q = tokens.vector("q", n)?;
    LinearComplementarityProblem::new(m, q)
}

/// Reads an LCP `.dat` file.
pub fn read_lcp(path: &Path) -> Result<LinearComplementarityProblem> {
    parse_lcp(&path.display().to_string(), &std::fs::read_to_string(path)?)
}

/// Parses a friction-contact problem in Siconos's `.dat` format (`d`, `n_c`, the
/// NumericsMatrix W, q, μ; anything after μ is ignored); `file` names the source in errors.
pub fn parse_friction(file: &str, text: &str) -> Result<FrictionContactProblem> {
    let mut tokens = Tokens::new(file, text);
    let d = tokens.count("dimension")?;
    let contacts = tokens.count("number of contacts")?;
    let n = d.saturating_mul(contacts);
    let w = tokens.numerics_matrix(n, n)?;
    let q = tokens.vector("q", n)?;
    let mu = tokens.vector("μ", contacts)?;
    FrictionContactProblem::new(d, w, q, mu)
}

/// Reads a friction-contact `.dat` file.
pub fn read_friction(path: &Path) -> Result<FrictionContactProblem> {
    parse_friction(&path.display().to_string(), &std::fs::read_to_string(path)?)
}

/// Parses an MLCP in Siconos's `.dat` format; `file` names the source in errors.
pub fn parse_mlcp(file: &str, text: &str) -> Result<MixedLinearComplementarityProblem> {
    let mut tokens = Tokens::new(file, text);
    let (storage1, storage2) = (tokens.flag("isStorageType1")?, tokens.flag("isStorageType2")?);
    let (n, m) = (tokens.count("n")?, tokens.count("m")?);
    let size = n + m;
    let blocks = if storage1 {
        let mut ends = vec![tokens.count("blocksRows")?];
        if ends[0] != 0 {
            return Err(tokens.error("blocksRows must start at 0".into()));
        }
        while ends.last().is_some_and(|&end| end < size) {
            let end = tokens.count("blocksRows")?;
            if end <= ends[ends.len() - 1] || end > size {
                return Err(tokens.error(format!("blocksRows must increase from 0 to n + m = {size}")));
            }
            ends.push(end);
        }
        let mut equality = Vec::with_capacity(size);
        for rows in ends.windows(2) {
            let complementarity = tokens.flag("blocksIsComp")?;
            equality.extend((rows[0]..rows[1]).map(|_| !complementarity));
        }
        let matrix = tokens.numerics_matrix(size, size)?;
        let q = tokens.vector("q", size)?;
        Some(MixedLinearComplementarityProblem::new(matrix, q, equality)?)
    } else {
        None
    };
    let partitioned = if storage2 {
        let a = tokens.rows("A", n, n)?;
        let b = tokens.rows("B", m, m)?;
        let c = tokens.rows("C", n, m)?;
        let d = tokens.rows("D", m, n)?;
        let (a_vec, b_vec) = (tokens.vector("a", n)?, tokens.vector("b", m)?);
        Some(MixedLinearComplementarityProblem::from_blocks(
            (&a, &c, &a_vec),
            (&d, &b, &b_vec),
        )?)
    } else {
        None
    };
    match (blocks, partitioned) {
        (Some(blocks), Some(partitioned)) if blocks != partitioned => {
            Err(tokens.error("the block form (M, q) and the partitioned form (A, B, C, D, a, b) disagree".into()))
        }
        (Some(problem), _) | (None, Some(problem)) => Ok(problem),
        (None, None) => Err(tokens.error("neither storage form is present".into())),
    }
}

/// Reads an MLCP `.dat` file.
pub fn read_mlcp(path: &Path) -> Result<MixedLinearComplementarityProblem> {
    parse_mlcp(&path.display().to_string(), &std::fs::read_to_string(path)?)
}

/// Parses a `.ref` trajectory (`rows cols` then the rows) into a rows × cols matrix.
pub fn parse_ref(file: &str, text: &str) -> Result<DMatrix<f64>> {
    let mut tokens = Tokens::new(file, text);
    let (rows, cols) = (tokens.count("rows")?, tokens.count("cols")?);
    let values = tokens.vector("entries", rows * cols)?;
    Ok(DMatrix::from_row_slice(rows, cols, values.as_slice()))
}

/// Reads a `.ref` trajectory file.
pub fn read_ref(path: &Path) -> Result<DMatrix<f64>> {
    parse_ref(&path.display().to_string(), &std::fs::read_to_string(path)?)
}

/// Parses a table without a header (numpy's `savetxt`, as Siconos's Python examples write
/// their `.ref`): one row per non-blank line, every line as long as the first.
pub fn parse_table(file: &str, text: &str) -> Result<DMatrix<f64>> {
    let fail = |reason: String| Error::Parse {
        file: file.into(),
        reason,
    };
    let mut values = Vec::new();
    let (mut rows, mut cols) = (0, None);
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let row: Vec<f64> = line
            .split_whitespace()
            .map(|t| {
                t.parse()
                    .map_err(|_| fail(format!("line {}: `{t}` is not a number", i + 1)))
            })
            .collect::<Result<_>>()?;
        match cols {
            None => cols = Some(row.len()),
            Some(n) if n != row.len() => {
                return Err(fail(format!(
                    "line {}: {} numbers where the first line has {n}",
                    i + 1,
                    row.len()
                )));
            }
            Some(_) => {}
        }
        values.extend(row);
        rows += 1;
    }
    Ok(DMatrix::from_row_slice(rows, cols.unwrap_or(0), &values))
}

/// Reads a table without a header ([`parse_table`]).
pub fn read_table(path: &Path) -> Result<DMatrix<f64>> {
    parse_table(&path.display().to_string(), &std::fs::read_to_string(path)?)
}

#[cfg(test)]
mod tests;
