//! [`Shared`]: a slice that the parallel tasks of a sweep write at once, each its own items.

use std::ops::Range;

/// A slice written by the tasks of a sweep's stage at once: the bodies, the blocks, or the
/// contacts' terms and Δr — a stage's contacts share no body and each is in one block, so
/// each task holds its own blocks and their contacts' bodies, terms and Δr alone.
pub struct Shared<'a, T> {
    items: *mut T,
    len: usize,
    life: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: `Shared` hands out items only through `at`, `read` and `slice`, whose callers
// guarantee that no other thread holds those items at the same time.
unsafe impl<T: Send> Send for Shared<'_, T> {}
unsafe impl<T: Send> Sync for Shared<'_, T> {}

impl<'a, T> Shared<'a, T> {
    /// The items, to be handed out one task at a time.
    pub fn new(items: &'a mut [T]) -> Self {
        Self {
            items: items.as_mut_ptr(),
            len: items.len(),
            life: std::marker::PhantomData,
        }
    }

    /// A copy of item k.
    ///
    /// # Safety
    /// No other thread may be writing item k, nor a `&mut` to it be alive.
    #[inline(always)]
    pub unsafe fn read(&self, k: usize) -> T
    where
        T: Copy,
    {
        assert!(k < self.len, "item {k} of {}", self.len);
        // SAFETY: in bounds; no one writes it meanwhile.
        unsafe { self.items.add(k).read() }
    }

    /// Items `range`.
    ///
    /// # Safety
    /// No other reference to one of these items may be alive while the returned one is.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub unsafe fn slice(&self, range: Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "items {range:?} of {}",
            self.len
        );
        // SAFETY: in bounds; the caller holds them alone.
        unsafe { std::slice::from_raw_parts_mut(self.items.add(range.start), range.len()) }
    }

    /// Item k.
    ///
    /// # Safety
    /// No other reference to item k may be alive while the returned one is.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub unsafe fn at(&self, k: usize) -> &mut T {
        assert!(k < self.len, "item {k} of {}", self.len);
        // SAFETY: in bounds; the caller holds it alone.
        unsafe { &mut *self.items.add(k) }
    }
}
