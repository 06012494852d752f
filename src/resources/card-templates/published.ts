// What other families use of card templates: filling a new card from one (the cards family's create).
export { fillFromCardTemplate } from './fill.js'
