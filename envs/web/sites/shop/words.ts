/**
 * Vocabulary of the seeded shop: categories with the nouns, brands and features their products
 * are named from, reviewer names and review phrases. Changing a list changes every seeded
 * product after it (and the tasks built on them), so append rather than edit.
 */

export interface CategoryWords {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly nouns: readonly string[];
  readonly brands: readonly string[];
  readonly features: readonly string[];
  /** Price range in dollars. */
  readonly price: readonly [number, number];
}

export const CATEGORIES: readonly CategoryWords[] = [
  { slug: 'electronics', name: 'Electronics', description: 'Headphones, speakers, chargers and gadgets.',
    nouns: ['Headphones', 'Bluetooth Speaker', 'Power Bank', 'USB-C Charger', 'Webcam', 'Smartwatch', 'Earbuds', 'HDMI Cable', 'Wireless Mouse', 'Keyboard'],
    brands: ['Voltix', 'Sonara', 'Kestrel', 'Nimbus', 'Arcwave'], features: ['long battery life', 'fast charging', 'noise cancelling', 'a compact design', 'a two-year warranty'], price: [9, 249] },
  { slug: 'home-kitchen', name: 'Home & Kitchen', description: 'Cookware, storage and small appliances.',
    nouns: ['Frying Pan', 'Chef Knife', 'Kettle', 'Blender', 'Cutting Board', 'Coffee Grinder', 'Storage Jars', 'Toaster', 'Mixing Bowls', 'Dish Rack'],
    brands: ['Hearthly', 'Copperleaf', 'Oakmere', 'Kitchora'], features: ['dishwasher-safe parts', 'a non-stick coating', 'stainless steel', 'an ergonomic handle', 'easy cleaning'], price: [8, 189] },
  { slug: 'books', name: 'Books', description: 'Novels, cookbooks and guides.',
    nouns: ['Cookbook', 'Mystery Novel', 'Travel Guide', 'Poetry Collection', 'Field Guide', 'Biography', 'Science Primer', 'Sketchbook'],
    brands: ['Larkspur Press', 'Bluequill', 'Harbor Books'], features: ['a hardcover binding', 'colour photographs', 'an index', 'large print', 'a ribbon bookmark'], price: [6, 45] },
  { slug: 'sports-outdoors', name: 'Sports & Outdoors', description: 'Gear for the trail, the gym and the water.',
    nouns: ['Yoga Mat', 'Water Bottle', 'Tent', 'Hiking Backpack', 'Dumbbell Set', 'Jump Rope', 'Camping Stove', 'Trekking Poles', 'Sleeping Bag'],
    brands: ['Summitra', 'Trailfox', 'Peakline', 'Riverstone'], features: ['a lightweight frame', 'waterproof fabric', 'a carry strap', 'a lifetime warranty', 'recycled materials'], price: [7, 299] },
  { slug: 'beauty', name: 'Beauty', description: 'Skin care, hair care and fragrance.',
    nouns: ['Face Cream', 'Shampoo', 'Lip Balm', 'Sunscreen', 'Hair Dryer', 'Perfume', 'Body Lotion', 'Nail Kit'],
    brands: ['Lumiere', 'Velvetine', 'Aurelle', 'Pure Fern'], features: ['no parabens', 'a light scent', 'SPF 30', 'natural oils', 'a travel size'], price: [4, 89] },
  { slug: 'toys-games', name: 'Toys & Games', description: 'Board games, puzzles and building sets.',
    nouns: ['Board Game', 'Jigsaw Puzzle', 'Building Set', 'Plush Bear', 'Card Game', 'Kite', 'Model Train', 'Puppet'],
    brands: ['Playwell', 'Brightbox', 'Tinkertop'], features: ['1000 pieces', 'ages 8 and up', 'two to six players', 'soft materials', 'a storage box'], price: [5, 120] },
  { slug: 'clothing', name: 'Clothing', description: 'Jackets, shirts, shoes and accessories.',
    nouns: ['Rain Jacket', 'Wool Sweater', 'Running Shoes', 'Denim Jeans', 'Scarf', 'T-Shirt', 'Beanie', 'Leather Belt', 'Socks'],
    brands: ['Northwind', 'Cobble & Co', 'Marlow', 'Threadline'], features: ['organic cotton', 'a relaxed fit', 'machine-washable fabric', 'reinforced seams', 'a hood'], price: [9, 199] },
  { slug: 'garden', name: 'Garden', description: 'Tools, planters and seeds.',
    nouns: ['Garden Hose', 'Pruning Shears', 'Planter', 'Watering Can', 'Seed Kit', 'Garden Gloves', 'Bird Feeder', 'Compost Bin'],
    brands: ['Greenhollow', 'Fernbrook', 'Bloomwise'], features: ['rust-proof steel', 'UV-resistant plastic', 'a comfortable grip', 'drainage holes', 'heirloom seeds'], price: [5, 150] },
  { slug: 'office', name: 'Office Supplies', description: 'Notebooks, pens, desks and lamps.',
    nouns: ['Notebook', 'Gel Pens', 'Desk Lamp', 'Stapler', 'Desk Organizer', 'Whiteboard', 'Office Chair', 'Monitor Stand'],
    brands: ['Inkwell', 'Paperfield', 'Deskcraft'], features: ['acid-free paper', 'an adjustable arm', 'a heavy-duty spring', 'a dimmable light', 'bamboo wood'], price: [3, 260] },
  { slug: 'pet-supplies', name: 'Pet Supplies', description: 'Food bowls, beds and toys for pets.',
    nouns: ['Dog Bed', 'Cat Tree', 'Pet Bowl', 'Leash', 'Chew Toy', 'Litter Box', 'Pet Carrier', 'Grooming Brush'],
    brands: ['Pawsome', 'Tailwag', 'Whiskerly'], features: ['a washable cover', 'non-slip feet', 'a reflective strip', 'chew-resistant rubber', 'an odour filter'], price: [4, 140] },
];

export const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Essential', 'Premium', 'Ultra', 'Eco', 'Pro', 'Lite', 'Everyday', 'Portable', 'Signature'];
export const COLOURS = ['Black', 'White', 'Red', 'Blue', 'Green', 'Grey', 'Navy', 'Olive', 'Sand', 'Teal'];

export const FIRST_NAMES = ['Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Mateo', 'Sofia', 'Lucas', 'Mia', 'Ethan', 'Amara', 'Kenji', 'Priya', 'Omar', 'Chloe', 'Diego', 'Hana', 'Jonas', 'Leila', 'Ravi'];
export const LAST_NAMES = ['Lopez', 'Smith', 'Nguyen', 'Garcia', 'Müller', 'Okafor', 'Tanaka', 'Rossi', 'Khan', 'Dubois', 'Silva', 'Kowalski'];
export const CITIES = [['Portland', 'OR'], ['Austin', 'TX'], ['Denver', 'CO'], ['Boston', 'MA'], ['Madison', 'WI'], ['Raleigh', 'NC']] as const;
export const STREETS = ['Maple Street', 'Oak Avenue', 'Cedar Lane', 'Pine Road', 'Elm Court', 'Birch Way', 'Willow Drive'];

export const REVIEW_TITLES: Readonly<Record<number, readonly string[]>> = {
  1: ['Very disappointed', 'Broke after a week', 'Not as described'],
  2: ['Could be better', 'Meh', 'Below expectations'],
  3: ['It is okay', 'Decent for the price', 'Average'],
  4: ['Pretty good', 'Solid choice', 'Happy with it'],
  5: ['Excellent!', 'Love it', 'Exactly what I needed', 'Best purchase this year'],
};

export const REVIEW_SENTENCES: Readonly<Record<number, readonly string[]>> = {
  1: ['It stopped working almost immediately.', 'The quality is much worse than the photos suggest.', 'I returned it.'],
  2: ['It works, but only just.', 'The materials feel cheap.', 'Shipping took longer than promised.'],
  3: ['It does the job.', 'Nothing special, nothing terrible.', 'Good enough for occasional use.'],
  4: ['Works well and looks nice.', 'Good value for money.', 'I would buy it again.'],
  5: ['Outstanding quality.', 'It exceeded my expectations.', 'I recommend it to everyone.', 'Arrived quickly and well packed.'],
};
