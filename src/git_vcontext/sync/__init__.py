"""Local sync (PRODUCT.md, rule M11): fork an agent, merge agent branches and their bases
both ways, and status."""
