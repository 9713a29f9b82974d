/** How many rows a listing page shows; tasks need them to know on which page an entity appears. */
export const PAGE_SIZE = 20; // shop: products per category or search page
export const ORDERS_PAGE_SIZE = 10; // shop: orders per page of the order history
export const POSTS_PAGE_SIZE = 25; // forum: posts per listing page
