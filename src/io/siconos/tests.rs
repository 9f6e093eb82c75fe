use super::*;

#[test]
fn tables_without_a_header() {
    let table = parse_table("t", "1 2.5\n\n3 -4e-1\n").unwrap();
    assert_eq!(table, DMatrix::from_row_slice(2, 2, &[1.0, 2.5, 3.0, -0.4]));
    let e = parse_table("t", "1 2\n3\n").unwrap_err().to_string();
    assert!(e.contains("line 2: 1 numbers where the first line has 2"), "{e}");
    let e = parse_table("t", "1 x\n").unwrap_err().to_string();
    assert!(e.contains("line 1: `x` is not a number"), "{e}");
}

#[test]
fn dense_is_column_major() {
    let lcp = parse_lcp("t", "2 0 2 2 2 2  1 3  2 4  -1 -2").unwrap();
    assert_eq!(lcp.m, DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]));
    assert_eq!(lcp.q.as_slice(), &[-1.0, -2.0]);
}

#[test]
fn sparse_block_matches_dense() {
    // deudeu: one 2x2 block [[2, 1], [1, 2]].
    let text = "2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1 1 2 -5 -6";
    let lcp = parse_lcp("t", text).unwrap();
    assert_eq!(lcp.m, DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]));
}

#[test]
fn bad_sparse_blocks_are_errors() {
    // The same block stored twice; then block pointers that do not end at nbblocks.
    let twice = "2 1 2 2 2 1 1 2 2 2 2 0 2 0 0 0 2 1 1 2 1 2 1 1 2 -5 -6";
    assert!(matches!(parse_lcp("t", twice), Err(Error::Parse { .. })));
    let short = "2 1 2 2 1 1 1 2 2 2 1 0 0 0 0 2 1 1 2 -5 -6";
    assert!(matches!(parse_lcp("t", short), Err(Error::Parse { .. })));
}

#[test]
fn friction_problem_in_csparse_storage() {
    let text = "2 1 2 2 2 2\nCSparse Version 3.1.9\n2-by-2, nzmax: 3 nnz: 3, 1-norm: 4\n\
                col 0 : locations 0 to 1\n 0 : 2\n 1 : 1\n col 1 : locations 2 to 2\n 1 : 3\n\
                -1 0 0.5 trailing words";
    let p = parse_friction("t", text).unwrap();
    assert_eq!(p.w, DMatrix::from_row_slice(2, 2, &[2.0, 0.0, 1.0, 3.0]));
    assert_eq!((p.q.as_slice(), p.mu.as_slice()), (&[-1.0, 0.0][..], &[0.5][..]));
    let wrong_shape = text.replace("2-by-2,", "3-by-3,");
    assert!(matches!(parse_friction("t", &wrong_shape), Err(Error::Parse { .. })));
}

#[test]
fn truncated_file_is_an_error() {
    assert!(matches!(parse_lcp("t", "2 0 2 2 2 2 1 3"), Err(Error::Parse { .. })));
}
