// Large outputs on transparent huge pages: one page fault per 2 MiB instead of per 4 KiB.
#pragma once
#include <cstddef>

namespace pe {

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with huge pages
// (madvise MADV_HUGEPAGE), before anything touches them. Where the system does not offer them
// (or on other platforms) it does nothing: only speed depends on it.
void advise_huge_pages(void* p, std::size_t bytes);

// Below this size a buffer gains nothing from huge pages.
inline constexpr std::size_t huge_page_worthwhile_bytes = std::size_t{8} << 20;

}  // namespace pe
