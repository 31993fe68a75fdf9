import { Type } from 'typebox';
import { PageQuery } from '../http/schemas.js';

export const MarketplaceQuery = Type.Object(PageQuery);
