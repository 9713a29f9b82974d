/**
 * Vocabulary of the seeded forum: sub-forums with the title templates and topics their posts
 * are written from, user-name parts and comment phrases. Append rather than edit: every list
 * change re-deals the seeded posts that the tasks are built on.
 */

export interface ForumWords {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** `{t}` is replaced by a topic. */
  readonly titles: readonly string[];
  readonly topics: readonly string[];
  readonly sentences: readonly string[];
}

export const FORUMS: readonly ForumWords[] = [
  { name: 'books', title: 'Books', description: 'Reading recommendations, reviews and literary chat.',
    titles: ['Just finished {t}, what should I read next?', 'Is {t} worth reading?', 'Unpopular opinion: {t} is overrated', 'Book club pick for next month: {t}'],
    topics: ['The Glass Orchard', 'Salt and Iron', 'A Winter of Lanterns', 'The Cartographer\'s Daughter', 'Nine Quiet Rivers', 'Paper Moons'],
    sentences: ['The pacing in the middle really dragged for me.', 'The ending caught me completely off guard.', 'I read it in two sittings.', 'The audiobook narration is excellent.'] },
  { name: 'gaming', title: 'Gaming', description: 'Video games, board games and everything in between.',
    titles: ['Tips for beating the final boss in {t}?', '{t} patch notes discussion', 'Is {t} good for co-op?', 'I finally finished {t}'],
    topics: ['Starfall Tactics', 'Hollow Crown', 'Pixel Harvest', 'Neon Drift', 'Dungeon Bakery', 'Skyward Rails'],
    sentences: ['I have sunk about 80 hours into it.', 'The difficulty spike in chapter three is brutal.', 'Multiplayer is where it shines.', 'The soundtrack alone is worth it.'] },
  { name: 'science', title: 'Science', description: 'News and questions from every field of science.',
    titles: ['ELI5: how does {t} work?', 'New paper on {t} just came out', 'What is the current consensus on {t}?', 'Great documentary about {t}'],
    topics: ['photosynthesis', 'plate tectonics', 'black holes', 'CRISPR', 'the immune system', 'superconductors'],
    sentences: ['The sample size seems small to me.', 'This matches what my professor said.', 'Here is a good summary for non-experts.', 'Correlation is not causation, though.'] },
  { name: 'movies', title: 'Movies', description: 'Film discussion, reviews and trailers.',
    titles: ['Rewatched {t} last night', 'Official discussion: {t}', 'Why is nobody talking about {t}?', 'The soundtrack of {t} is incredible'],
    topics: ['The Long Harbor', 'Midnight Diner', 'Echoes of Mars', 'The Last Orchard', 'Paper Tigers', 'Cold Summer'],
    sentences: ['The cinematography is stunning.', 'The second act lost me a bit.', 'The lead actor deserved an award.', 'I saw it in the cinema twice.'] },
  { name: 'cooking', title: 'Cooking', description: 'Recipes, techniques and kitchen disasters.',
    titles: ['My first attempt at {t}', 'Best recipe for {t}?', 'How do you keep {t} from going soggy?', 'Weeknight {t} that takes 20 minutes'],
    topics: ['sourdough bread', 'ramen', 'lasagna', 'banana bread', 'paella', 'dumplings'],
    sentences: ['Use more salt than you think.', 'A cast iron pan makes a big difference.', 'I let the dough rest overnight.', 'My family asked for seconds.'] },
  { name: 'travel', title: 'Travel', description: 'Trip reports, itineraries and travel advice.',
    titles: ['Two weeks in {t}: my itinerary', 'First time visiting {t}, any tips?', 'Is {t} expensive in winter?', 'Hidden gems in {t}'],
    topics: ['Lisbon', 'Kyoto', 'Patagonia', 'Iceland', 'Marrakesh', 'Vancouver'],
    sentences: ['Public transport there is excellent.', 'Book the museums in advance.', 'The food alone was worth the trip.', 'Go in the shoulder season to avoid crowds.'] },
  { name: 'technology', title: 'Technology', description: 'Gadgets, software and the tech industry.',
    titles: ['Is {t} worth upgrading to?', 'My experience switching to {t}', '{t} keeps crashing, any fixes?', 'Thoughts on the new {t}?'],
    topics: ['a mechanical keyboard', 'Linux on the desktop', 'a home server', 'e-ink tablets', 'mesh Wi-Fi', 'a standing desk'],
    sentences: ['Battery life has been great so far.', 'Setup took about an hour.', 'I would wait for the next version.', 'Support was surprisingly helpful.'] },
  { name: 'music', title: 'Music', description: 'Albums, gigs, instruments and playlists.',
    titles: ['Album of the week: {t}', 'Saw {t} live last night', 'Where to start with {t}?', 'Underrated tracks by {t}'],
    topics: ['The Velvet Hours', 'Northern Static', 'Luna Park', 'The Brass Foxes', 'Quiet Engines', 'Saltwater Choir'],
    sentences: ['The bass line on track four is unreal.', 'Their older stuff is better.', 'The live version beats the studio one.', 'I have had it on repeat all week.'] },
];

export const NAME_LEFT = ['curious', 'quiet', 'brave', 'sleepy', 'lucky', 'clever', 'fuzzy', 'rusty', 'sunny', 'wild', 'gentle', 'swift'];
export const NAME_RIGHT = ['otter', 'falcon', 'panda', 'maple', 'comet', 'badger', 'heron', 'pixel', 'walrus', 'fern', 'lynx', 'kettle'];

export const BIOS = ['Lurker turned poster.', 'Here for the recipes.', 'Amateur astronomer and coffee snob.', 'I read too many books.', 'Retro games collector.', 'Weekend hiker.', 'Just here to learn.', ''];

export const COMMENTS = [
  'Totally agree with this.', 'I had the opposite experience, honestly.', 'Thanks for sharing!', 'Can you post a follow-up?',
  'This is the best answer in the thread.', 'Source?', 'Saving this for later.', 'Came here to say the same thing.',
  'Interesting take, but I am not convinced.', 'This made my day.', 'Could you explain that a bit more?', 'Underrated comment.',
];
